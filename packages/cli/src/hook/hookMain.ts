import './zodJitless.js';
import { processHookIo, runHook, type UNKNOWN_AGENT_EXIT } from './runHook.js';

/**
 * The hook process's entry (`loopguard hook claude|gemini|codex`, dispatched by `bin.js` before anything
 * else loads). The build bundles it with everything it imports into one CommonJS file,
 * `dist/bundle/hook.cjs` (scripts/bundle-hook.mjs): one file to read and compile instead of
 * hundreds of modules.
 *
 * It returns once the call is over: the database closed, the reply written. The process's entries
 * (`bin.js`, the startup snapshot's) then end the process with `process.exit`, rather than let node
 * wind down (free the V8 heap piece by piece, run a scavenge it scheduled, its cleanup hooks):
 * ≈ 3 ms of a call's CPU (docs/benchmarks.md).
 * @param agent - `claude`, `gemini` or `codex` (another: one line on stderr, exit 1: `runHook`).
 * @example process.exitCode = await hookMain('claude');
 */
export async function hookMain(agent: string): Promise<0 | typeof UNKNOWN_AGENT_EXIT> {
  const io = processHookIo();
  const code = await runHook(agent, io);
  await io.replied();
  return code;
}
