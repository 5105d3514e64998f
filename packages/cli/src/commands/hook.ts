import type { Command } from 'commander';
import { CLI_NAMES, type HookAgent } from '../hook/hookEvent.js';
import { processHookIo, runHook, terminalStdinWords, unknownAgentWords } from '../hook/runHook.js';
import { CliError } from '../terminal/CliError.js';
import type { CliIo } from '../terminal/cliIo.js';
import { EXIT_CODES } from '../terminal/exitCodes.js';

/**
 * `loopguard hook claude|gemini|codex`: one hook call of Claude Code, Gemini CLI or Codex, the event on stdin,
 * the reply on stdout, exit 0 (see docs/hooks.md); an unknown agent, or a terminal as stdin: one line, exit 1 (`UNKNOWN_AGENT_EXIT`). `bin.js` runs it without loading the
 * command tree; this registration gives it its help and the same behaviour through `runCli`.
 * @example echo '{"hook_event_name":"PostToolUse",...}' | loopguard hook claude
 */
export function registerHookCommand(program: Command, io: CliIo): void {
  program
    .command('hook')
    .description('Guard one hook event of Claude Code, Gemini CLI or Codex (installed by loopguard init).')
    .argument('<agent>', 'claude, gemini or codex')
    .action(async (agent: string) => {
      const { stderr: _saidByCliError, ...hookIo } = processHookIo();
      const code = await runHook(agent, { ...hookIo, stdout: io.stdout, env: io.env, cwd: io.cwd });
      if (code !== 0)
        throw new CliError(
          hookIo.stdinIsTerminal === true && Object.hasOwn(CLI_NAMES, agent)
            ? terminalStdinWords(agent as HookAgent)
            : unknownAgentWords(agent),
          EXIT_CODES.internalError,
        );
    });
}
