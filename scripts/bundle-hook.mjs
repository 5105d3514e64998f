// Bundles the hook's entry (packages/cli/dist/hook/hookMain.js, built by `tsc -b`) with everything
// it imports into one CommonJS file, packages/cli/dist/bundle/hook.cjs (CommonJS so that V8's
// compiled code of it can be cached between calls on Node 20, see bin.ts): a hook call is a new node process per tool call, and
// reading one file costs far less than resolving and compiling hundreds of modules (docs/hooks.md,
// decisions.md). Run by `pnpm run build` after `tsc -b`; `bin.js` falls back to the modules when the
// bundle is missing.
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';

const cli = fileURLToPath(new URL('../packages/cli/', import.meta.url));
const outDir = `${cli}dist/bundle`;
rmSync(outDir, { recursive: true, force: true });
await build({
  input: `${cli}dist/hook/hookMain.js`,
  cwd: cli,
  platform: 'node',
  // The native addon loads its .node file relative to its own package: it stays a dependency. The
  // price data (~0.8 MB) is loaded only by a call with a money budget: it stays a dependency too.
  external: ['better-sqlite3', '@pydantic/genai-prices'],
  // loopguard's modules and its dependencies have no side effects at import: what the hook does not
  // use is left out (zod's schemas of the options it never parses, pino's logger, ...).
  treeshake: { moduleSideEffects: false },
  logLevel: 'warn',
  output: { file: `${outDir}/hook.cjs`, format: 'cjs', codeSplitting: false },
});
