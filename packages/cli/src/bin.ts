#!/usr/bin/env node
const args = process.argv.slice(2);
if (args[0] === 'hook' && args.length === 2 && !args[1]?.startsWith('-')) {
  // A hook call is one process per tool call of the agent: load only what it needs (no commander,
  // no server), so that node's start-up dominates its latency.
  const { processHookIo, runHook } = await import('./hook/runHook.js');
  process.exitCode = await runHook(args[1] as string, processHookIo());
} else {
  const { processIo } = await import('./cliIo.js');
  const { runCli } = await import('./main.js');
  process.exitCode = await runCli(args, processIo());
}
