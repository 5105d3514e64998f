// Builds the hook's startup snapshot, <bundle dir>/hook.blob, from <bundle dir>/hook-snapshot.cjs
// with this node (a blob only loads in the node that built it), where it will be used (the bundle
// resolves better-sqlite3 and the price data from its own place). Run by bundle-hook.mjs after the
// build, and by install.sh in the installed package.
//   node scripts/build-hook-snapshot.mjs <bundle dir>
// Without a blob, or with one this node cannot load, the installed hook command starts without it
// (docs/hooks.md): a failed build is reported, never fatal.
import { spawnSync } from 'node:child_process';
import { existsSync, renameSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Builds `dir/hook.blob`; removes a stale one first.
 * @param {string} dir - the bundle directory (`…/@loopguard/cli/dist/bundle`).
 * @returns {boolean} whether the blob was built.
 */
export function buildHookSnapshot(dir) {
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
  renameSync(building, blob);
  buildZodCache(dir);
  return true;
}

/**
 * V8's code cache of `dir/zod-subset.cjs` (zod, loaded by a hook call only when it validates
 * something: a project's configuration file, a snapshot the hook did not seal; see bundle-hook.mjs),
 * `dir/zod-subset.cache`: made by a node like the hook's (no V8 flag, `NODE_OPTIONS` cleared) that
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
  const result = spawnSync(process.execPath, ['-e', make, source, cache], {
    encoding: 'utf8',
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  if (result.status !== 0)
    console.error(
      `loopguard: zod's code cache was not made (zod compiles from its source): ${result.stderr}`,
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
