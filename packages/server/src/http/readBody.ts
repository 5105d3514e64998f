import type { IncomingMessage } from 'node:http';
import { HttpError } from './HttpError.js';

/**
 * Checks the declared body size before anything else is read.
 * @throws HttpError 413 when `Content-Length` is over `limit`.
 */
export function checkDeclaredBody(req: IncomingMessage, limit: number): void {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limit) throw new HttpError(413, `request body over ${limit} bytes`);
}

/**
 * Reads and drops a request body (no route takes one), so that the connection can be reused.
 * @throws HttpError 413 once more than `limit` bytes arrived.
 */
export function drainBody(req: IncomingMessage, limit: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners('data');
        req.resume();
        reject(new HttpError(413, `request body over ${limit} bytes`));
      }
    });
    req.on('end', () => resolve());
    req.on('error', reject);
  });
}
