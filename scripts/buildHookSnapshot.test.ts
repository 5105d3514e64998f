import { describe, expect, it } from 'vitest';

// build-hook-snapshot.mjs takes node's code cache of its own modules out of the hook's blob only
// where it finds that cache for certain: anything else leaves the blob as node built it.
const script = new URL('./build-hook-snapshot.mjs', import.meta.url).href;
const { codeCacheOffset } = (await import(script)) as {
  codeCacheOffset(blob: Buffer): number | undefined;
};

const u32 = (value: number) => {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32LE(value);
  return bytes;
};
const u64 = (value: number) => {
  const bytes = Buffer.alloc(8);
  bytes.writeBigUInt64LE(BigInt(value));
  return bytes;
};
const text = (value: string) => Buffer.concat([u64(value.length), Buffer.from(value, 'latin1')]);

/** A blob in node's layout (`SnapshotData::ToBlob`): its head, V8's data, node's data, then the code cache. */
function blobOf(cache: Buffer, version = process.versions.node) {
  const head = Buffer.concat([
    u32(0x0143da19),
    Buffer.from([1]),
    text(version),
    text(process.arch),
    text(process.platform),
    u32(0x839dbe75),
    u32(0),
  ]);
  // V8's data and node's own data, which hold numbers that could pass for a count of modules
  const v8 = Buffer.concat([u64(2), text('internal/x'), u64(3)]);
  const node = Buffer.concat([u64(1), text('ab'), u64(0), Buffer.alloc(40, 7)]);
  const start = head.length + 4 + v8.length + node.length;
  return { blob: Buffer.concat([head, u32(v8.length), v8, node, cache]), start };
}

const twoModules = Buffer.concat([
  u64(2),
  text('zlib'),
  text('compiled code of zlib'),
  text('internal/fs/utils'),
  text('compiled code'),
]);

describe("build-hook-snapshot.mjs: where node's code cache of its own modules starts in a blob", () => {
  it('finds the vector that ends exactly at the end of the file, past V8 data', () => {
    const { blob, start } = blobOf(twoModules);
    expect(codeCacheOffset(blob)).toBe(start);
  });

  it('finds nothing in a blob of another node, an empty cache, or a tail that is not the vector', () => {
    expect(codeCacheOffset(blobOf(twoModules, '20.0.0').blob)).toBeUndefined();
    expect(codeCacheOffset(blobOf(u64(0)).blob)).toBeUndefined(); // taken out already
    expect(codeCacheOffset(blobOf(Buffer.concat([twoModules, Buffer.from([0])])).blob)).toBeUndefined();
    expect(codeCacheOffset(blobOf(Buffer.concat([u64(2), text('zlib')])).blob)).toBeUndefined();
    expect(codeCacheOffset(Buffer.alloc(100))).toBeUndefined();
  });
});
