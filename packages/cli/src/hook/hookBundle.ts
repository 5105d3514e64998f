import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import module, { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Script } from 'node:vm';
import type { hookMain } from './hookMain.js';

/** What the hook bundle (`dist/bundle/hook.cjs`, scripts/bundle-hook.mjs) exports. */
export interface HookBundle {
  /** See {@link hookMain}. */
  hookMain: typeof hookMain;
}

/**
 * Loads the hook bundle with V8's compiled code of the last call, and keeps the code of this one
 * when there was none (or V8 rejected it: another Node version). Node 22.1 and later do this
 * themselves (`module.enableCompileCache`, in `compile-cache/` beside the bundle); on older Node
 * the bundle is compiled through `vm.Script`, whose cache, made after the call, also holds the
 * functions the call compiled, in `hook.cjs.cache` beside the bundle. Both stay in the install's
 * folder, never a shared temporary one; where it cannot be written, each call compiles.
 * @param file - the bundle's path.
 * @example const { hookMain } = loadHookBundle('/…/dist/bundle/hook.cjs');
 */
export function loadHookBundle(file: string): HookBundle & { saveCache(): void } {
  const require = createRequire(file);
  const { enableCompileCache } = module as { enableCompileCache?: (directory: string) => unknown };
  if (enableCompileCache !== undefined) {
    // Never Node's default, $TMPDIR/node-compile-cache: another local user can make that folder
    // first and plant compiled code in it, which V8 would run as this hook.
    enableCompileCache(join(dirname(file), 'compile-cache'));
    return { ...(require(file) as HookBundle), saveCache: () => {} };
  }
  const cacheFile = `${file}.cache`;
  let cachedData: Buffer | undefined;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    // First call: no cache yet.
  }
  const script = new Script(module.wrap(readFileSync(file, 'utf8')), {
    filename: file,
    ...(cachedData === undefined ? {} : { cachedData }),
  });
  const exports = {};
  const bundleModule = { exports };
  script.runInThisContext()(exports, require, bundleModule, file, dirname(file));
  return {
    ...(bundleModule.exports as HookBundle),
    saveCache() {
      if (cachedData !== undefined && !script.cachedDataRejected) return;
      try {
        const temporary = `${cacheFile}.${process.pid}`;
        writeFileSync(temporary, script.createCachedData());
        renameSync(temporary, cacheFile);
      } catch {
        // A read-only install: every call compiles the bundle.
      }
    },
  };
}
