#!/usr/bin/env node
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
if (args[0] === 'hook' && args.length === 2 && !args[1]?.startsWith('-')) {
  // A hook call is one process per tool call of the agent: load only what it needs, from the one
  // file the build bundles (scripts/bundle-hook.mjs), or from the modules when it was not built.
  const bundle = fileURLToPath(new URL('./bundle/hook.cjs', import.meta.url));
  if (existsSync(bundle)) {
    const { loadHookBundle } = await import('./hook/hookBundle.js');
    const { hookMain, saveCache } = loadHookBundle(bundle);
    process.exitCode = await hookMain(args[1] as string);
    saveCache();
  } else {
    const { hookMain } = await import('./hook/hookMain.js');
    process.exitCode = await hookMain(args[1] as string);
  }
  process.exit(); // the call is over: no winding down (see hookMain)
} else if (args[0] === 'statusline' && args.length === 1) {
  // Claude Code runs the status line after every reply: load only what it needs, from the bundle.
  const bundle = fileURLToPath(new URL('./bundle/statusline.cjs', import.meta.url));
  const { statuslineMain } = existsSync(bundle)
    ? (createRequire(import.meta.url)(bundle) as typeof import('./statusline/statuslineMain.js'))
    : await import('./statusline/statuslineMain.js');
  process.exitCode = await statuslineMain();
} else {
  const { processIo } = await import('./terminal/cliIo.js');
  const { runCli } = await import('./main.js');
  process.exitCode = await runCli(args, processIo());
}
