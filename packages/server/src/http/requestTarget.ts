import type { IncomingMessage } from 'node:http';
import { HttpError } from './HttpError.js';

/**
 * The URL of a request, from its request target (origin form `/status?limit=10` or absolute form
 * `http://host/status`).
 * @throws HttpError 400 when the target is not a URL (`GET http://[::1 HTTP/1.1`).
 * @example requestUrl(req).pathname // '/status'
 */
export function requestUrl(req: IncomingMessage): URL {
  const target = req.url ?? '/';
  if (URL.canParse(target, 'http://loopguard.invalid')) return new URL(target, 'http://loopguard.invalid');
  throw new HttpError(400, `the request target is not a valid URL: ${JSON.stringify(target.slice(0, 200))}`);
}
