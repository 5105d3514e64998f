import './zodJitless.js';
import { processHookIo, runHook } from './runHook.js';

/**
 * The hook process's entry (`loopguard hook claude|gemini|codex`, dispatched by `bin.js` before anything
 * else loads). The build bundles it with everything it imports into one CommonJS file,
 * `dist/bundle/hook.cjs` (scripts/bundle-hook.mjs): one file to read and compile instead of
 * hundreds of modules.
 * @param agent - `claude`, `gemini` or `codex`.
 * @example process.exitCode = await hookMain('claude');
 */
export function hookMain(agent: string): Promise<0> {
  return runHook(agent, processHookIo());
}
