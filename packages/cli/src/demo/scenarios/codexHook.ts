import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import type { DemoScenario } from '../DemoContext.js';
import { CLI_BIN, copyRecords } from './claudeCodeHook.js';

const COMMAND = 'npm test';
/** The model's call that would switch loopguard off: refused, the session going on. */
const UNINSTALL = 'npm uninstall -g @loopguard/cli';
/** The session's calls: the second runs in a subfolder (`workdir`); stopped, the model tries to switch loopguard off. */
const CALLS: readonly { command: string; workdir?: string }[] = [
  { command: COMMAND },
  { command: COMMAND, workdir: 'packages/web' },
  { command: COMMAND },
  { command: COMMAND },
  { command: UNINSTALL },
];
const FAILURE =
  'FAIL test/sum.test.js\n  sum adds two numbers: expected 5, received 4\nTests: 1 failed, 1 total\n';

/** The demo's Codex project's configuration: the hooks on, as by default. */
const DEMO_CONFIG = 'hook:\n  enabled: true\n';

/** One line of a Codex 0.169.0 rollout (`$CODEX_HOME/sessions/…/rollout-*.jsonl`). */
function rolloutLine(payload: Record<string, unknown>, type = 'response_item'): string {
  return `${JSON.stringify({ timestamp: new Date().toISOString(), type, payload })}\n`;
}

/**
 * Step level, in Codex: a session that runs the same failing tests again and again, as Codex 0.169.0
 * writes its rollout and sends its hook events (formats checked with the real Codex in
 * codexHooks.e2e.test.ts), each event through the built `loopguard hook codex`. Codex names no exit
 * code in its events: the hook reads the failure from the rollout, nudges at the third failure,
 * and denies every repeat after it (no reply ends a Codex turn). A call run in a subfolder (its
 * `workdir`: the event's `cwd`) is still the session's, in its project; once stopped, the model's call
 * that would uninstall loopguard is refused, counted as a refused call of the session.
 */
export const codexHook: DemoScenario = {
  title: 'Codex guarded by `loopguard hook codex`: a session nudged, then every repeat refused',
  tasks: [],
  async run(ctx) {
    const project = join(ctx.workDir, 'codex-project');
    mkdirSync(join(project, 'packages', 'web'), { recursive: true });
    // a project of its own: else the hook's walk up from `.loopguard/demo-files` reached the
    // repository the demo runs in and recorded this session in the user's own database (qa50)
    writeFileSync(join(project, 'loopguard.config.yaml'), DEMO_CONFIG);
    const rollout = join(project, 'rollout.jsonl');
    writeFileSync(rollout, rolloutLine({ id: 'demo-codex-session', cwd: project }, 'session_meta'));
    const hook = async (
      name: string,
      callId: string,
      call: (typeof CALLS)[number],
      extra: Record<string, unknown> = {},
    ) => {
      const event = {
        session_id: 'demo-codex-session',
        turn_id: 'turn-1',
        transcript_path: rollout,
        // Codex names the call's workdir as the event's cwd; its hooks run in the session's folder
        cwd: call.workdir === undefined ? project : join(project, call.workdir),
        hook_event_name: name,
        model: 'gpt-5',
        tool_name: 'Bash',
        tool_input: { command: call.command },
        tool_use_id: callId,
        ...extra,
      };
      const { stdout } = await execa(process.execPath, [CLI_BIN, 'hook', 'codex'], {
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
    for (const [i, call] of CALLS.entries()) {
      const n = i + 1;
      const id = `call_${n}`;
      appendFileSync(
        rollout,
        rolloutLine({
          type: 'function_call',
          name: 'exec_command',
          arguments: JSON.stringify({
            cmd: call.command,
            ...(call.workdir === undefined ? {} : { workdir: join(project, call.workdir) }),
          }),
          call_id: id,
        }),
      );
      const before = await hook('PreToolUse', id, call);
      if (before?.permissionDecision === 'deny') {
        const output = `Command blocked by PreToolUse hook: ${before.permissionDecisionReason}`;
        appendFileSync(rollout, rolloutLine({ type: 'function_call_output', call_id: id, output }));
        const what = call.command === UNINSTALL ? 'REFUSED (it would switch loopguard off)' : 'REFUSED';
        ctx.print(
          `   Call ${n} PreToolUse Bash: ${call.command} -> ${what}, never runs; the model reads "${output.split('\n')[0]}"`,
        );
        await ctx.pause();
        continue;
      }
      const after = await hook('PostToolUse', id, call, { tool_response: FAILURE });
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
      const where =
        call.workdir === undefined ? '' : ` (workdir ${call.workdir}, recorded in the session's project)`;
      ctx.print(
        `   Call ${n} Bash: ${COMMAND}${where} -> ${nudge === undefined ? 'failed (exit code 1, read from the rollout)' : `NUDGE (a developer message in the model's next request): "${nudge}"`}`,
      );
      await ctx.pause();
    }
    const { entries, sessionIds } = copyRecords(ctx, project, 'codex-project');
    ctx.print(
      `   The hook recorded ${entries} entries (loop_nudge, call_refused, loop_stop) for the Codex session ${sessionIds.join(', ')}`,
    );
  },
};
