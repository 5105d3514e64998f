import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import type { DemoScenario } from '../DemoContext.js';
import { copyRecords } from './claudeCodeHook.js';

/** The built command, from `src/` and `dist/` alike: each event goes through `loopguard hook codex`. */
const BIN = fileURLToPath(new URL('../../../dist/bin.js', import.meta.url));

const COMMAND = 'npm test';
const FAILURE =
  'FAIL test/sum.test.js\n  sum adds two numbers: expected 5, received 4\nTests: 1 failed, 1 total\n';

/** One line of a Codex 0.169.0 rollout (`$CODEX_HOME/sessions/…/rollout-*.jsonl`). */
function rolloutLine(payload: Record<string, unknown>, type = 'response_item'): string {
  return `${JSON.stringify({ timestamp: new Date().toISOString(), type, payload })}\n`;
}

/**
 * Step level, in Codex: a session that runs the same failing tests again and again, as Codex 0.169.0
 * writes its rollout and sends its hook events (formats checked with the real Codex in
 * codexHooks.e2e.test.ts), each event through the built `loopguard hook codex`. Codex names no exit
 * code in its events: the hook reads the failure from the rollout, nudges at the third failure,
 * and denies every repeat after it (no reply ends a Codex turn).
 */
export const codexHook: DemoScenario = {
  title: 'Codex guarded by `loopguard hook codex`: a session nudged, then every repeat denied',
  tasks: [],
  async run(ctx) {
    const project = join(ctx.workDir, 'codex-project');
    mkdirSync(project);
    const rollout = join(project, 'rollout.jsonl');
    writeFileSync(rollout, rolloutLine({ id: 'demo-codex-session', cwd: project }, 'session_meta'));
    const hook = async (name: string, callId: string, extra: Record<string, unknown> = {}) => {
      const event = {
        session_id: 'demo-codex-session',
        turn_id: 'turn-1',
        transcript_path: rollout,
        cwd: project,
        hook_event_name: name,
        model: 'gpt-5',
        tool_name: 'Bash',
        tool_input: { command: COMMAND },
        tool_use_id: callId,
        ...extra,
      };
      const { stdout } = await execa(process.execPath, [BIN, 'hook', 'codex'], {
        cwd: project,
        input: JSON.stringify(event),
        reject: false,
        env: { LOOPGUARD_HOOK: '' },
      });
      return stdout.trim() === ''
        ? undefined
        : (
            JSON.parse(stdout) as {
              hookSpecificOutput: {
                permissionDecision?: string;
                permissionDecisionReason?: string;
                additionalContext?: string;
              };
            }
          ).hookSpecificOutput;
    };
    for (let n = 1; n <= 6; n++) {
      const id = `call_${n}`;
      appendFileSync(
        rollout,
        rolloutLine({
          type: 'function_call',
          name: 'exec_command',
          arguments: JSON.stringify({ cmd: COMMAND }),
          call_id: id,
        }),
      );
      const before = await hook('PreToolUse', id);
      if (before?.permissionDecision === 'deny') {
        const output = `Command blocked by PreToolUse hook: ${before.permissionDecisionReason}`;
        appendFileSync(rollout, rolloutLine({ type: 'function_call_output', call_id: id, output }));
        ctx.print(
          `   Call ${n} PreToolUse Bash: ${COMMAND} -> DENIED, never runs; the model reads "${output.split('\n')[0]}"`,
        );
        await ctx.pause();
        continue;
      }
      const after = await hook('PostToolUse', id, { tool_response: FAILURE });
      // Codex writes the call's output, with its exit code, after its PostToolUse hooks
      appendFileSync(
        rollout,
        rolloutLine({
          type: 'function_call_output',
          call_id: id,
          output: `Process exited with code 1\nOutput:\n${FAILURE}`,
        }),
      );
      const nudge = after?.additionalContext?.split('\n')[0];
      ctx.print(
        `   Call ${n} Bash: ${COMMAND} -> ${nudge === undefined ? 'failed (exit code 1, read from the rollout)' : `NUDGE (a developer message in the model's next request): "${nudge}"`}`,
      );
      await ctx.pause();
    }
    const copied = copyRecords(ctx, project);
    ctx.print(`   The hook recorded ${copied} entries (loop_nudge, loop_stop) for task codex:<session id>`);
  },
};
