// Bundles the hook's entry (packages/cli/dist/hook/hookMain.js, built by `tsc -b`) with everything
// it imports into one CommonJS file, packages/cli/dist/bundle/hook.cjs (CommonJS so that V8's
// compiled code of it can be cached between calls on Node 20, see bin.ts): a hook call is a new node process per tool call, and
// reading one file costs far less than resolving and compiling hundreds of modules (docs/hooks.md,
// decisions.md). Run by `pnpm run build` after `tsc -b`; `bin.js` falls back to the modules when the
// bundle is missing.
//
// Then the same for the entry of the hook's startup snapshot (dist/hook/hookSnapshot.js →
// dist/bundle/hook-snapshot.cjs), and the snapshot itself, dist/bundle/hook.blob, built in place
// for this node (build-hook-snapshot.mjs; install.sh builds it again where it installs).
//
// And `loopguard scan`'s action and worker thread (dist/bundle/scan.mjs, scan-worker.mjs, below);
// the command and scanPaths fall back to the modules when they are missing.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';
import { buildHookSnapshot, buildPriceLibraryCache } from './build-hook-snapshot.mjs';

const cli = fileURLToPath(new URL('../packages/cli/', import.meta.url));
const outDir = `${cli}dist/bundle`;
rmSync(outDir, { recursive: true, force: true });

// The build's id (packages/cli/src/buildId.ts): a checksum of the compiled JavaScript of core,
// sqlite and the CLI, written into dist/buildId.js before any bundle is made, so that the modules,
// the bundles and the startup snapshot carry the same one.
const buildIdFile = `${cli}dist/buildId.js`;
const checksum = createHash('sha256');
for (const pkg of ['core', 'sqlite', 'cli']) {
  const dist = fileURLToPath(new URL(`../packages/${pkg}/dist/`, import.meta.url));
  const files = readdirSync(dist, { recursive: true })
    .filter((file) => file.endsWith('.js') && `${dist}${file}` !== buildIdFile)
    .sort();
  for (const file of files) checksum.update(`${pkg}/${file}\0`).update(readFileSync(`${dist}${file}`));
}
writeFileSync(
  buildIdFile,
  `/** This build's id: see src/buildId.ts (written by scripts/bundle-hook.mjs). */\nexport const BUILD_ID = '${checksum.digest('hex').slice(0, 16)}';\n`,
);

/** The rolldown options shared by both bundles. */
const options = {
  cwd: cli,
  platform: 'node',
  // The native addon loads its .node file relative to its own package: it stays a dependency. The
  // price data (~0.8 MB) is loaded only by a call with a money budget: it stays a dependency too.
  external: ['better-sqlite3', '@pydantic/genai-prices'],
  // loopguard's modules and its dependencies have no side effects at import: what the hook does not
  // use is left out (zod's schemas of the options it never parses, pino's logger, ...); but for the
  // modules that are imported for their effect: zod's switch, set before any schema is made, and
  // node's `net`, evaluated in the hook's startup snapshot (hookSnapshot.ts).
  treeshake: { moduleSideEffects: (id) => id.endsWith('/hook/zodJitless.js') || id === 'node:net' },
  logLevel: 'warn',
};
// The bundles' strings, templates and regular expressions are written in ASCII (`charset: 'ascii'`,
// their few other characters escaped): V8 keeps a script's source in its heap, at one byte a
// character only when every character fits in one. The snapshot's bundle, without comments, is then
// all ASCII, and its heap, which each call deserializes, 0.66 MB smaller (docs/benchmarks.md).

/** A plugin that answers every import of `specifier` with `code`, a module of its own named `id`. */
const replaceModule = (name, specifier, id, code) => ({
  name,
  resolveId: (source) => (source === specifier ? id : undefined),
  load: (loaded) => (loaded === id ? code : undefined),
});

// core's silent logger (the default where a logger is optional) is the hook's only use of pino's
// code, and the hook passes a logger of its own everywhere: pino (with thread-stream, sonic-boom and
// its serializers, a fifth of the bundle) is required the first time a silent logger is made, not
// evaluated in the snapshot (blob 0.3 MB smaller: fewer pages to read and fault in on every call,
// docs/benchmarks.md). pino is the CLI's own dependency, found from the bundle's place.
const pinoOnUse = replaceModule(
  'pino-on-use',
  'pino',
  '\0pino-on-use',
  `const { createRequire } = require('node:module');
let pino;
exports.pino = (...args) => (pino ??= createRequire(__filename)('pino').pino)(...args);`,
);

// zod's code is not evaluated in the hook's startup snapshot: it was a quarter of the snapshot
// bundle's source and, evaluated, ≈ 4 ms of every call's start (its heap deserialized: docs/benchmarks.md).
// The snapshot's modules that import `zod` get a stand-in whose `z` and `config` load it on first use,
// and no schema is made when they load (`lazySchema`); a call of a project without a configuration
// file, on a snapshot the hook sealed itself, makes none. zod itself (the members loopguard uses,
// tree-shaken) is its own file, dist/bundle/zod-subset.cjs, compiled with V8's code cache of it,
// zod-subset.cache, made beside the blob (build-hook-snapshot.mjs, which compiles it in the same
// wrapper). A member of `z` missing from ZOD_MEMBERS is an error that names it.
const ZOD_MEMBERS = [
  'any',
  'array',
  'boolean',
  'coerce',
  'enum',
  'instanceof',
  'lazy',
  'literal',
  'looseObject',
  'NEVER',
  'number',
  'object',
  'partialRecord',
  'record',
  'strictObject',
  'string',
  'tuple',
  'union',
  'unknown',
  'url',
];
await build({
  ...options,
  input: '\0zod-subset-entry',
  plugins: [
    replaceModule(
      'zod-subset-entry',
      '\0zod-subset-entry',
      '\0zod-subset-entry',
      `import { z, config } from 'zod';\nexport const zod = { config, z: { ${ZOD_MEMBERS.map((m) => `${m}: z.${m}`).join(', ')} } };`,
    ),
  ],
  output: { file: `${outDir}/zod-subset.cjs`, format: 'cjs', codeSplitting: false, charset: 'ascii' },
});
const zodOnUse = replaceModule(
  'zod-on-use',
  'zod',
  '\0zod-on-use',
  `const { readFileSync } = require('node:fs');
const { join } = require('node:path');
const { Script } = require('node:vm');
const { startupSnapshot } = require('node:v8');
const dir = __dirname; // the bundle's folder, where the snapshot is built
let zod;
const settings = [];
function load() {
  if (zod !== undefined) return zod;
  if (startupSnapshot.isBuildingSnapshot()) throw new Error('zod was loaded while the startup snapshot was built: make the schema on first use (lazySchema)');
  const file = join(dir, 'zod-subset.cjs');
  let cachedData;
  try { cachedData = readFileSync(join(dir, 'zod-subset.cache')); } catch {}
  const script = new Script('(function (exports, require, module) {' + readFileSync(file, 'latin1') + '\\n})', { filename: file, cachedData });
  const module = { exports: {} };
  script.runInThisContext()(module.exports, require, module);
  zod = module.exports.zod;
  for (const setting of settings) zod.config(setting);
  return zod;
}
exports.config = (setting) => (zod === undefined ? settings.push(setting) : zod.config(setting));
exports.z = new Proxy({}, {
  get: (_, key) => {
    const member = load().z[key];
    if (member === undefined && typeof key === 'string') throw new Error('z.' + key + ' is not in zod-subset.cjs: add it to ZOD_MEMBERS (bundle-hook.mjs)');
    return member;
  },
});`,
);

await build({
  ...options,
  input: `${cli}dist/hook/hookMain.js`,
  plugins: [pinoOnUse],
  output: { file: `${outDir}/hook.cjs`, format: 'cjs', codeSplitting: false, charset: 'ascii' },
});

// A snapshot holds no native addon, and the builder runs no module from a file: better-sqlite3's
// JavaScript is bundled in, and what it would find with `bindings` (its addon, found from its own
// place) is found once, when the snapshot is built (in place, see build-hook-snapshot.mjs), then
// loaded with `process.dlopen` on the first call that opens a database. better-sqlite3 requires
// `bindings` only when it opens its first database, so the snapshot's entry requires it first
// (`evaluatedAtBuild`): else each call would search for the addon again (≈ 2 ms, docs/benchmarks.md).
const ADDON = '\0better-sqlite3-addon';
const addonAtBuild = replaceModule(
  'better-sqlite3-addon',
  'bindings',
  ADDON,
  `const { createRequire } = require('node:module');
const { existsSync } = require('node:fs');
const { dirname, join } = require('node:path');
const sqlite = dirname(createRequire(__filename).resolve('better-sqlite3/package.json'));
const file = join(sqlite, 'build', 'Release', 'better_sqlite3.node');
module.exports = () => {
  if (!existsSync(file)) throw new Error('better-sqlite3 has no addon at ' + file);
  const addon = { exports: {} };
  process.dlopen(addon, file);
  return addon.exports;
};`,
);
/** Makes `entry` require the addon's module above before anything else, so that it runs while the snapshot is built. */
const evaluatedAtBuild = (entry) => ({
  name: 'better-sqlite3-addon-at-build',
  resolveId: (id, importer) =>
    id === 'bindings' && importer === entry ? { id: ADDON, moduleSideEffects: true } : undefined,
  transform: (code, id) => (id === entry ? `import 'bindings';\n${code}` : undefined),
});
// Claude Code's status line runs after every reply: one file too (dist/bundle/statusline.cjs),
// better-sqlite3's JavaScript bundled in and its addon loaded without `bindings`' search (≈ 12 ms
// of CPU a call, docs/benchmarks.md), and run by node itself when it is the main module: `init`
// writes `node …/statusline.cjs` as the command, which skips bin.js and node's ES module loader.
await build({
  ...options,
  input: `${cli}dist/statusline/statuslineMain.js`,
  external: ['@pydantic/genai-prices'],
  plugins: [addonAtBuild],
  output: {
    file: `${outDir}/statusline.cjs`,
    format: 'cjs',
    codeSplitting: false,
    charset: 'ascii',
    footer:
      'if (require.main === module) module.exports.statuslineMain().then((code) => { process.exitCode = code; });',
  },
});

await build({
  ...options,
  input: `${cli}dist/hook/hookSnapshot.js`,
  external: ['@pydantic/genai-prices'],
  plugins: [evaluatedAtBuild(`${cli}dist/hook/hookSnapshot.js`), addonAtBuild, pinoOnUse, zodOnUse],
  output: {
    file: `${outDir}/hook-snapshot.cjs`,
    format: 'cjs',
    codeSplitting: false,
    charset: 'ascii',
    minify: { compress: false, mangle: false, codegen: { removeWhitespace: true } },
  },
});
buildHookSnapshot(outDir);

// `loopguard scan` itself: its action (dist/scan/runScan.js → dist/bundle/scan.mjs), loaded by the
// command when present, and its worker thread (dist/scan/scanWorker.js → dist/bundle/scan-worker.mjs),
// loaded by each worker. One file each loads in 40-100 ms where their modules took 160-430
// (docs/benchmarks.md); the workers start first and wait for the calling thread's options and files,
// so both loads are on the scan's way. ES modules, not CommonJS: the action loads the HTML report's
// module on use (left out, found from the bundle's place), the worker awaits its price book at the
// top level. Their dependencies' own side effects are kept (the tree-shaking default): unlike the
// hook's, nothing they load is cut by hand, so what a bundle does is what its modules do.
// Without comments, each file is all ASCII (V8 holds its source at one byte a character).
// `CliError` stays out too, imported from its own place: the command's `instanceof CliError` must
// see the class the action throws (a bundled copy is another class: bad input read as an internal
// error, exit 1 instead of 2).
const htmlReport = `${cli}dist/scan/htmlReport.js`;
const cliError = `${cli}dist/terminal/CliError.js`;
for (const [entry, file] of [
  ['dist/scan/runScan.js', 'scan.mjs'],
  ['dist/scan/scanWorker.js', 'scan-worker.mjs'],
]) {
  await build({
    cwd: cli,
    platform: 'node',
    external: ['@pydantic/genai-prices'],
    plugins: [
      {
        name: 'html-report-apart',
        // the server's page assets stay out: the module is imported from its own place
        resolveId: (id) => (id.endsWith('/htmlReport.js') ? { id: htmlReport, external: true } : undefined),
      },
      {
        name: 'cli-error-apart',
        resolveId: (id) => (id.endsWith('/CliError.js') ? { id: cliError, external: true } : undefined),
      },
    ],
    logLevel: 'warn',
    input: `${cli}${entry}`,
    output: {
      file: `${outDir}/${file}`,
      paths: { [htmlReport]: '../scan/htmlReport.js', [cliError]: '../terminal/CliError.js' },
      format: 'es',
      codeSplitting: false,
      charset: 'ascii',
      minify: { compress: false, mangle: false, codegen: { removeWhitespace: true } },
    },
  });
}

// The pricing library for the scan's threads (dist/bundle/genai-prices.cjs): each thread of a scan
// loads it, and compiling its 0.8 MB was half of that. As one CommonJS file of the build, V8's code
// cache of it (genai-prices.cache, made beside the blob by build-hook-snapshot.mjs, where the build
// is installed) spares the compile (scan/bundledPriceLibrary.ts, which falls back to the package).
// It is the installed package's own code, tree-shaken to `calcPrice`, in ASCII.
await build({
  cwd: cli,
  platform: 'node',
  plugins: [
    replaceModule(
      'price-library-entry',
      '\0price-library-entry',
      '\0price-library-entry',
      `export { calcPrice } from '@pydantic/genai-prices';`,
    ),
  ],
  logLevel: 'warn',
  input: '\0price-library-entry',
  output: {
    file: `${outDir}/genai-prices.cjs`,
    format: 'cjs',
    codeSplitting: false,
    charset: 'ascii',
    minify: { compress: false, mangle: false, codegen: { removeWhitespace: true } },
  },
});
buildPriceLibraryCache(outDir);
