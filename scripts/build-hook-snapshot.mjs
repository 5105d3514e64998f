// Builds the hook's startup snapshot, <bundle dir>/hook.blob, from <bundle dir>/hook-snapshot.cjs
// with this node (a blob only loads in the node that built it), where it will be used (the bundle
// resolves better-sqlite3 and the price data from its own place). Run by bundle-hook.mjs after the
// build, and by install.sh in the installed package.
//   node scripts/build-hook-snapshot.mjs <bundle dir>
// Without a blob, or with one this node cannot load, the installed hook command starts without it
// (docs/hooks.md): a failed build is reported, never fatal.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Builds `dir/hook.blob`; removes a stale one first.
 * @param {string} dir - the bundle directory (`…/@loopguard/cli/dist/bundle`).
 * @returns {boolean} whether the blob was built.
 */
export function buildHookSnapshot(dir) {
  buildPriceLibraryCache(dir);
  const blob = join(dir, 'hook.blob');
  const building = `${blob}.${process.pid}`;
  rmSync(blob, { force: true });
  const result = spawnSync(
    process.execPath,
    ['--no-warnings', '--snapshot-blob', building, '--build-snapshot', join(dir, 'hook-snapshot.cjs')],
    { encoding: 'utf8' },
  );
  if (result.status !== 0) {
    rmSync(building, { force: true });
    console.error(
      `loopguard: the hook's startup snapshot was not built (hooks start without it): ${result.stderr}`,
    );
    return false;
  }
  withoutBuiltinsCodeCache(building, join(dir, 'hook-snapshot.cjs'));
  renameSync(building, blob);
  buildZodCache(dir);
  return true;
}

/**
 * Takes node's code cache of its own modules out of the blob at `path`, when the blob is in the
 * layout this script knows and loads without it; else leaves it whole. Node adds to every blob it
 * builds the compiled code of all its modules (324 on node 20, 2.9 MB of the blob's 5.7 MB), for
 * the modules a process requires after its start; a hook call requires none (every module it uses
 * is in the snapshot's heap), yet each call read that half of the file into a zeroed buffer, copied
 * it and indexed it: ≈ 4 ms of CPU a call (docs/benchmarks.md, issue 37 §3, ninth round). A module
 * a call did require without it is compiled from node's source, as any node without a cache does.
 * Node's own way to leave it out (`withoutCodeCache` in `--build-snapshot-config`) drops the
 * compiled code of the snapshot's functions too, which each call would then compile again (+2.8 ms).
 *
 * The layout (node's `SnapshotData::ToBlob`): a magic number, the metadata (a type byte, node's
 * version, arch and platform as a 64-bit length and its bytes, V8's cache tag and flags as 32-bit
 * numbers), V8's startup data (a 32-bit length and its bytes), node's own isolate and environment
 * data, and last the code cache: a 64-bit count, then each module's id and its code as a 64-bit
 * length and its bytes. The cache's start is the one offset past V8's data from which that vector,
 * its ids printable, ends exactly at the end of the file; it becomes a count of zero. The result
 * replaces the blob only when this node starts from it and answers `--snapshot-check`; nothing here
 * fails the build.
 * @param {string} path - the blob just built.
 * @param {string} entry - the snapshot's entry script (the check runs it as the hook command does).
 */
function withoutBuiltinsCodeCache(path, entry) {
  const trimmed = `${path}.trimmed`;
  try {
    const blob = readFileSync(path);
    const start = codeCacheOffset(blob);
    if (start === undefined) return;
    writeFileSync(trimmed, Buffer.concat([blob.subarray(0, start), Buffer.alloc(8)]), { mode: 0o644 });
    const check = spawnSync(
      process.execPath,
      ['--snapshot-blob', trimmed, entry, 'hook', '--snapshot-check'],
      {
        encoding: 'utf8',
        env: { ...process.env, NODE_OPTIONS: '' },
      },
    );
    if (check.status === 0 && check.stdout === 'ok') renameSync(trimmed, path);
  } catch {
    // a write that failed (a full disk): the blob as node built it still works
  } finally {
    rmSync(trimmed, { force: true });
  }
}

/** Node's blob magic number (`SnapshotData::kMagic`). */
const BLOB_MAGIC = 0x0143da19;

/**
 * Where the code cache vector of node's blob `blob` starts ({@link withoutBuiltinsCodeCache}), or
 * `undefined` when the blob is not in that layout (another node's, an empty cache).
 * @param {Buffer} blob
 * @returns {number | undefined}
 */
export function codeCacheOffset(blob) {
  const size = blob.length;
  if (size < 64 || blob.readUInt32LE(0) !== BLOB_MAGIC) return undefined;
  let at = 5; // the magic and the snapshot's type
  for (const expected of [process.versions.node, process.arch, process.platform]) {
    const length = Number(blob.readBigUInt64LE(at));
    if (blob.toString('latin1', at + 8, at + 8 + length) !== expected) return undefined;
    at += 8 + length;
  }
  at += 8; // V8's cache tag and the snapshot's flags
  const v8End = at + 4 + blob.readUInt32LE(at);
  const found = [];
  for (let offset = v8End; offset <= size - 8 && found.length < 2; offset++)
    if (isCodeCacheTail(blob, offset)) found.push(offset);
  return found.length === 1 ? found[0] : undefined;
}

/** Whether a code cache vector of at least one module starts at `offset` and ends exactly at the end of `blob`. */
function isCodeCacheTail(blob, offset) {
  const size = blob.length;
  const count = Number(blob.readBigUInt64LE(offset));
  if (count < 1 || count > 10_000) return false;
  let at = offset + 8;
  for (let i = 0; i < count; i++) {
    if (at + 8 > size) return false;
    const idLength = Number(blob.readBigUInt64LE(at));
    at += 8;
    if (idLength < 1 || idLength > 256 || at + idLength > size) return false;
    for (let c = at; c < at + idLength; c++) if (blob[c] <= 0x20 || blob[c] >= 0x7f) return false;
    at += idLength;
    if (at + 8 > size) return false;
    const codeLength = Number(blob.readBigUInt64LE(at));
    at += 8;
    if (codeLength > size - at) return false;
    at += codeLength;
  }
  return at === size;
}

/**
 * V8's code cache of `dir/zod-subset.cjs` (zod, loaded by a hook call only when it validates
 * something: a project's configuration file, a snapshot the hook did not seal; see bundle-hook.mjs),
 * `dir/zod-subset.cache`: made by a node like the hook's (its one V8 flag, `--no-sparkplug`, which a
 * call from the startup snapshot sets before it loads zod; `NODE_OPTIONS` cleared) that
 * compiles the file as the hook does, makes and runs schemas of the kinds loopguard's options are
 * made of, then saves what it compiled. A cache V8 refuses (another node, a changed file) is ignored:
 * zod is then compiled from its source. Without zod-subset.cjs (a build before it): nothing.
 * @param {string} dir - the bundle directory.
 */
function buildZodCache(dir) {
  const source = join(dir, 'zod-subset.cjs');
  const cache = join(dir, 'zod-subset.cache');
  rmSync(cache, { force: true });
  if (!existsSync(source)) return;
  const make = `
const { readFileSync, writeFileSync, renameSync } = require('node:fs');
const { Script } = require('node:vm');
const [source, cache] = process.argv.slice(1);
// the same wrapper as the hook's zod-on-use module (bundle-hook.mjs), byte for byte
const script = new Script('(function (exports, require, module) {' + readFileSync(source, 'latin1') + '\\n})', { filename: source });
const module = { exports: {} };
script.runInThisContext()(module.exports, require, module);
const { z, config } = module.exports.zod;
config({ jitless: true });
const options = z
  .strictObject({
    a: z.number().int().min(2).max(9).default(3),
    b: z.number().gt(0).max(1).default(0.5),
    c: z.boolean().default(true),
    d: z.array(z.string().min(1)).readonly().default([]),
    e: z.array(z.instanceof(RegExp)).readonly().optional(),
    f: z.enum(['x', 'y']).default('x'),
    g: z.record(z.string().min(1), z.strictObject({ i: z.number().min(0).finite() })).optional(),
    h: z.any().superRefine(() => {}).optional(),
    j: z.string().min(1).optional(),
  })
  .refine((value) => value.a > 0, { message: 'm', path: ['a'] });
options.safeParse({ a: 4, d: ['x'], e: [/x/], g: { m: { i: 1 } }, h: {} });
options.safeParse({ a: 1, z: 2 });
z.object({ k: z.boolean().default(true), l: z.array(z.string()).transform((v) => v).optional() })
  .catchall(z.unknown())
  .safeParse({ k: false, l: ['a'], other: 1 });
writeFileSync(cache + '.' + process.pid, script.createCachedData(), { mode: 0o644 });
renameSync(cache + '.' + process.pid, cache);
`;
  // the hook's V8 flag (HOOK_V8_FLAG, packages/cli/src/hook/baselineCompiler.ts): V8 takes a cache
  // only in a process whose flags are the ones it was made with
  const result = spawnSync(process.execPath, ['--no-sparkplug', '-e', make, source, cache], {
    encoding: 'utf8',
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  if (result.status !== 0)
    console.error(
      `loopguard: zod's code cache was not made (zod compiles from its source): ${result.stderr}`,
    );
}

/**
 * V8's code cache of `dir/genai-prices.cjs` (the pricing library as one file, which each thread of
 * `loopguard scan` and a hook call that prices a reply load: bundle-hook.mjs, hook/priceLibrary.ts),
 * `dir/genai-prices.cache`: made by a node like theirs (`NODE_OPTIONS` cleared) that compiles the
 * file through their own function (`compilePriceLibrary`, the same wrapper), prices replies of three
 * providers' models, then saves what it compiled. A cache V8 refuses is ignored (the library compiles from its source).
 * Without genai-prices.cjs (a build before it, or the bundles not made yet): nothing.
 * @param {string} dir - the bundle directory.
 */
export function buildPriceLibraryCache(dir) {
  const source = join(dir, 'genai-prices.cjs');
  const cache = join(dir, 'genai-prices.cache');
  rmSync(cache, { force: true });
  const loader = join(dir, '..', 'hook', 'priceLibrary.js');
  if (!existsSync(source) || !existsSync(loader)) return;
  const make = `
import { renameSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
const [loader, source, cache] = process.argv.slice(1);
const { compilePriceLibrary } = await import(pathToFileURL(loader).href);
const { library, script } = compilePriceLibrary(source);
const usage = { input_tokens: 21300, cache_write_tokens: 100, cache_read_tokens: 20000, output_tokens: 90 };
for (const model of ['claude-sonnet-4-5', 'gpt-5', 'gemini-2.5-pro', 'no-such-model'])
  library.calcPrice(usage, model, { timestamp: new Date('2026-01-01T00:00:00Z') });
writeFileSync(cache + '.' + process.pid, script.createCachedData(), { mode: 0o644 });
renameSync(cache + '.' + process.pid, cache);
`;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', make, loader, source, cache], {
    encoding: 'utf8',
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  if (result.status !== 0)
    console.error(
      `loopguard: the pricing library's code cache was not made (it compiles from its source): ${result.stderr}`,
    );
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dir = process.argv[2];
  if (dir === undefined) {
    console.error('usage: node scripts/build-hook-snapshot.mjs <bundle dir>');
    process.exit(2);
  }
  buildHookSnapshot(resolve(dir));
}
