import type { Command } from 'commander';
import type { CliIo } from '../cliIo.js';
import { processHookIo, runHook } from '../hook/runHook.js';

/**
 * `loopguard hook claude|gemini|codex`: one hook call of Claude Code, Gemini CLI or Codex, the event on stdin,
 * the reply on stdout, always exit 0 (see docs/hooks.md). `bin.js` runs it without loading the
 * command tree; this registration gives it its help and the same behaviour through `runCli`.
 * @example echo '{"hook_event_name":"PostToolUse",...}' | loopguard hook claude
 */
export function registerHookCommand(program: Command, io: CliIo): void {
  program
    .command('hook')
    .description('Guard one hook event of Claude Code, Gemini CLI or Codex (installed by loopguard init).')
    .argument('<agent>', 'claude, gemini or codex')
    .action(async (agent: string) => {
      await runHook(agent, { ...processHookIo(), stdout: io.stdout, env: io.env, cwd: io.cwd });
    });
}
