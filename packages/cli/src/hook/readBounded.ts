import type { Readable } from 'node:stream';

/**
 * Largest event a hook call reads: 64 MiB. A larger one (a tool result of more than that) is not
 * parsed: the call fails open. Below it, a long tool result is cut to {@link boundedResult} before
 * the detector sees it, so a call's memory stays a few times this bound.
 */
export const MAX_EVENT_BYTES = 64 * 1024 * 1024;

/**
 * The stream's bytes as UTF-8 text, or `undefined` when there are more than `maxBytes` (the rest is
 * read and dropped, so that the writer is never blocked). A node stream is read by its `data` and
 * `end` events: its async iterator costs a hook call ≈ 1 ms of CPU more (docs/benchmarks.md).
 * @throws the stream's error, or an error when it closes before its end.
 * @example const text = await readBounded(process.stdin, MAX_EVENT_BYTES);
 */
export async function readBounded(
  stream: Readable | AsyncIterable<Buffer | string>,
  maxBytes = MAX_EVENT_BYTES,
): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  const add = (chunk: Buffer | string) => {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += bytes.length;
    if (size <= maxBytes) chunks.push(bytes);
    else chunks.length = 0;
  };
  if ('on' in stream) {
    await new Promise<void>((resolve, reject) => {
      stream
        .on('data', add)
        .once('end', resolve)
        .once('error', reject)
        // after `end` this changes nothing; before it, the event was cut (as `for await` rejects)
        .once('close', () => reject(new Error('the stream closed before its end')));
    });
  } else {
    for await (const chunk of stream) add(chunk);
  }
  return size > maxBytes ? undefined : Buffer.concat(chunks).toString('utf8');
}

/**
 * `stream`, not destroyed at its end: destroying a socket reads `process.stderr`, which makes the
 * stderr stream (its handle, its socket) for a hook call that writes nothing there: ≈ 0.8 ms of CPU a
 * call (docs/decisions.md, issue 37 §3, thirteenth round). For a stream its process ends after
 * reading (the hook's stdin: `hookMain`), which closes it then. Only a saving: on a node where the
 * switch is missing or cannot be set, `stream` is returned as it is.
 */
export function keptOpen<T extends Readable>(stream: T): T {
  // Node's private state: a node without it, or whose `autoDestroy` cannot be set (null state, a
  // getter alone, read-only), reads the event all the same, destroying the stream at its end.
  const state: unknown = (stream as unknown as { _readableState?: unknown })._readableState;
  if (typeof state === 'object' && state !== null) Reflect.set(state, 'autoDestroy', false);
  return stream;
}
