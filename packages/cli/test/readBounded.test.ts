import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readBounded } from '../src/hook/readBounded.js';

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
