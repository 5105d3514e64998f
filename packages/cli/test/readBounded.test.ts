import { EventEmitter } from 'node:events';
import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { keptOpen, readBounded } from '../src/hook/readBounded.js';

describe('readBounded', () => {
  it('reads a node stream whole, as UTF-8 across chunks', async () => {
    const euro = Buffer.from('€');
    const stream = Readable.from([
      Buffer.from('{"a":"'),
      euro.subarray(0, 1),
      euro.subarray(1),
      Buffer.from('"}'),
    ]);
    expect(await readBounded(stream, 100)).toBe('{"a":"€"}');
  });

  it('reads an async iterable the same way', async () => {
    async function* chunks() {
      yield 'ab';
      yield Buffer.from('cd');
    }
    expect(await readBounded(chunks(), 100)).toBe('abcd');
  });

  it('reads past the bound to the end, and returns nothing', async () => {
    const stream = new PassThrough();
    const read = readBounded(stream, 5);
    stream.write('1234');
    stream.write('5678');
    stream.end('9');
    expect(await read).toBeUndefined();
    expect(stream.readableEnded).toBe(true);
  });

  it("rejects with the stream's error, and when it closes before its end", async () => {
    const failing = new PassThrough();
    const failed = readBounded(failing, 100);
    failing.destroy(new Error('EIO'));
    await expect(failed).rejects.toThrow('EIO');
    const cut = new PassThrough();
    const closed = readBounded(cut, 100);
    cut.write('{"a":');
    cut.destroy();
    await expect(closed).rejects.toThrow('closed before its end');
  });
});

describe('keptOpen', () => {
  /** A stream of `text`, ended. */
  const streamOf = (text: string) => {
    const stream = new Readable({ read() {} });
    stream.push(text);
    stream.push(null);
    return stream;
  };

  it('keeps a node stream from being destroyed at its end, read whole', async () => {
    const stream = keptOpen(streamOf('{"a":1}'));
    expect(await readBounded(stream, 100)).toBe('{"a":1}');
    expect(stream.readableEnded).toBe(true);
    expect(stream.destroyed).toBe(false);
  });

  // `_readableState` is node's private state: a node that lacks it, or whose `autoDestroy` cannot be
  // set, must still read the event (destroyed at its end, as any stream), never fail the hook call.
  /** A stream of `{"b":2}` with its readable state changed by `change`. */
  const changed = (change: (state: object | null, stream: Readable) => void) => () => {
    const stream = streamOf('{"b":2}');
    change((stream as unknown as { _readableState: object })._readableState, stream);
    return stream;
  };
  it.each([
    [
      'no readable state (a stream of its own make)',
      () => {
        // node's own Readable cannot work without its state: a stream of another make stands for it
        const stream = new EventEmitter() as unknown as Readable;
        setImmediate(() => {
          stream.emit('data', Buffer.from('{"b":2}'));
          stream.emit('end');
        });
        return stream;
      },
    ],
    [
      'a null readable state',
      changed((_, stream) => {
        const state = (stream as unknown as { _readableState: object })._readableState;
        // only keptOpen's read (the first) sees null: node's own methods need their state
        let reads = 0;
        Object.defineProperty(stream, '_readableState', { get: () => (reads++ === 0 ? null : state) });
      }),
    ],
    [
      'an autoDestroy without a setter',
      changed((state) =>
        Object.defineProperty(state, 'autoDestroy', { get: () => true, configurable: true }),
      ),
    ],
    [
      'a read-only autoDestroy',
      changed((state) => Object.defineProperty(state, 'autoDestroy', { value: true, writable: false })),
    ],
    ['a frozen readable state', changed((state) => Object.preventExtensions(state))],
  ])('on a node with %s, returns the stream as it is and the event is read', async (_, make) => {
    const stream = make();
    expect(keptOpen(stream)).toBe(stream);
    expect(await readBounded(stream, 100)).toBe('{"b":2}');
  });
});
