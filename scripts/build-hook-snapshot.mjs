// Builds the hook's startup snapshot, <bundle dir>/hook.blob, from <bundle dir>/hook-snapshot.cjs
// with this node (a blob only loads in the node that built it), where it will be used (the bundle
// resolves better-sqlite3 and the price data from its own place). Run by bundle-hook.mjs after the
// build, and by install.sh in the installed package.
//   node scripts/build-hook-snapshot.mjs <bundle dir>
// Without a blob, or with one this node cannot load, the installed hook command starts without it
// (docs/hooks.md): a failed build is reported, never fatal.
import { spawnSync } from 'node:child_process';
import { renameSync, rmSync } from 'node:fs';
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
  return true;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dir = process.argv[2];
  if (dir === undefined) {
    console.error('usage: node scripts/build-hook-snapshot.mjs <bundle dir>');
    process.exit(2);
  }
  buildHookSnapshot(resolve(dir));
}
