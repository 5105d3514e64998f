import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import module, { builtinModules } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { loadHookBundle } from '../src/hook/hookBundle.js';
import { claudeFailingCall, hookCall, moduleRepliesToFailingCalls, tempProject } from './hookHelpers.js';

const dist = fileURLToPath(new URL('../dist/', import.meta.url));
const bundle = join(dist, 'bundle', 'hook.cjs');
// A copy of the bundle beside it, so that it resolves better-sqlite3 from the package as the original does.
const copyDir = mkdtempSync(join(dist, 'bundle-test-'));
afterAll(() => rmSync(copyDir, { recursive: true, force: true }));

describe('the hook bundle (scripts/bundle-hook.mjs, run by the build)', () => {
  it('is one file: it requires nothing but node built-ins and the native better-sqlite3', () => {
    const source = readFileSync(bundle, 'utf8');
    const required = new Set([...source.matchAll(/\brequire\("([^"]+)"\)/g)].map((m) => m[1]));
    const builtin = (name = '') => name.startsWith('node:') || builtinModules.includes(name);
    expect([...required].filter((name) => !builtin(name))).toEqual(['better-sqlite3']);
    // The command tree and its parser stay out of the hook's path.
    expect(source).not.toMatch(/node_modules\/commander\//);
    expect(source).not.toMatch(/dist\/program\.js/);
    // The YAML parser is required only by a project whose configuration is YAML.
    expect(source).not.toMatch(/node_modules\/yaml\//);
  });

  it('leaves pino out of both bundles and the snapshot, and finds it from their place when a silent logger is made', () => {
    for (const file of [bundle, join(dist, 'bundle', 'hook-snapshot.cjs')]) {
      const source = readFileSync(file, 'utf8');
      expect(source).not.toMatch(/node_modules\/(pino|thread-stream|sonic-boom)\/|SonicBoom|stdSerializers/);
      expect(source).toMatch(/createRequire\(__filename\)\(["`]pino["`]\)\.pino/);
      expect(typeof module.createRequire(file)('pino').pino).toBe('function');
    }
  });

  it('keeps V8’s compiled code of a call and reuses it on the next (Node’s own cache where Node has one)', () => {
    const copy = join(copyDir, 'hook.cjs');
    copyFileSync(bundle, copy);
    const first = loadHookBundle(copy);
    expect(typeof first.hookMain).toBe('function');
    first.saveCache();
    const hasNodeCache =
      typeof (module as { enableCompileCache?: unknown }).enableCompileCache === 'function';
    expect(existsSync(`${copy}.cache`)).toBe(!hasNodeCache);
    if (hasNodeCache) return;
    const written = statSync(`${copy}.cache`).mtimeMs;
    loadHookBundle(copy).saveCache();
    expect(statSync(`${copy}.cache`).mtimeMs).toBe(written); // accepted: not written again
  });

  it("never lets Node keep the hook's compiled code in the shared temporary folder another user could plant it in (issue 38)", () => {
    // Node 22.1+ `enableCompileCache()` without a folder uses $TMPDIR/node-compile-cache: any local
    // user can make that folder first and put compiled code there, which V8 runs as the hook's own.
    const copy = join(copyDir, 'hook.cjs');
    copyFileSync(bundle, copy);
    const node = module as { enableCompileCache?: (dir?: string) => unknown };
    const own = node.enableCompileCache;
    const folders: (string | undefined)[] = [];
    node.enableCompileCache = (dir?: string) => {
      folders.push(dir);
      return { status: 0 };
    };
    try {
      expect(typeof loadHookBundle(copy).hookMain).toBe('function');
    } finally {
      if (own === undefined) delete node.enableCompileCache;
      else node.enableCompileCache = own;
    }
    expect(folders).toEqual([join(copyDir, 'compile-cache')]);
  });

  it('answers a hook call through bin.js the same way as the modules do', async () => {
    const project = tempProject();
    const calls = [1, 2, 3, 4].map((n) => claudeFailingCall(project, 's1', n));
    const replies: string[] = [];
    for (const call of calls) {
      replies.push((await hookCall(project, 'claude', call.pre)).stdout);
      replies.push((await hookCall(project, 'claude', call.post)).stdout);
    }
    const moduleReplies = await moduleRepliesToFailingCalls(project);
    expect(replies.some((reply) => reply.includes('additionalContext'))).toBe(true);
    expect(replies).toEqual(moduleReplies);
  });
});
