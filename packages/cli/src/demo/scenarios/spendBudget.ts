import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import type { DemoScenario } from '../DemoContext.js';
import { CLI_BIN, copyRecords } from './claudeCodeHook.js';

const SESSION = 'demo-spend-session';
/** The budget the project's `loopguard.config.yaml` sets a session: $0.50. */
const CONFIG = 'spend:\n  session:\n    maxCostUsd: 0.5\n';
/** One reply's tokens on claude-sonnet-4-5: about $0.08 a reply, priced from the pricing library. */
const USAGE = { input_tokens: 3_000, cache_read_input_tokens: 150_000, output_tokens: 2_000 };

/** What the hook answered, as much of it as the narration shows. */
interface SpendAnswer {
  continue?: boolean;
  hookSpecificOutput?: { additionalContext?: string };
}

/**
 * The spend guard, in a Claude Code session: a session on claude-sonnet-4-5 that makes progress
 * (a new file edited every call) but costs too much. Claude Code writes each reply, with its
 * tokens, to the session's transcript; each `PostToolUse` event goes through the built
 * `loopguard hook claude`, which prices the replies the transcript gained and warns at 80 % of the
 * project's $0.50 budget, then stops the session at the cap. What the hook recorded (the session, its
 * spend, the warning and the stop) is copied into the demo's database, as `status` lists it.
 */
export const spendBudget: DemoScenario = {
  title: 'Spend guard: a Claude Code session warned at 80 % of its $0.50 budget, then stopped at the cap',
  tasks: [],
  async run(ctx) {
    // not under .loopguard/ (the demo's files): the model's calls there are refused (see claudeCodeHook)
    const project = mkdtempSync(join(tmpdir(), 'loopguard-demo-spend-'));
    try {
      writeFileSync(join(project, 'loopguard.config.yaml'), CONFIG);
      const transcript = join(project, 'transcript.jsonl');
      for (let n = 1; n <= 20; n++) {
        const file = `src/page${n}.tsx`;
        const reply = {
          type: 'assistant',
          timestamp: new Date().toISOString(),
          message: {
            id: `msg_${n}`,
            model: 'claude-sonnet-4-5',
            role: 'assistant',
            usage: USAGE,
            content: [{ type: 'tool_use', id: `toolu_${n}`, name: 'Edit', input: { file_path: file } }],
          },
        };
        appendFileSync(transcript, `${JSON.stringify(reply)}\n`);
        const event = {
          session_id: SESSION,
          transcript_path: transcript,
          cwd: project,
          hook_event_name: 'PostToolUse',
          tool_name: 'Edit',
          tool_input: { file_path: file },
          tool_response: 'The file was updated.',
          tool_use_id: `toolu_${n}`,
        };
        const { stdout } = await execa(process.execPath, [CLI_BIN, 'hook', 'claude'], {
          cwd: project,
          input: JSON.stringify(event),
          reject: false,
          env: { CLAUDE_PROJECT_DIR: '', LOOPGUARD_HOOK: '' },
        });
        if (stdout.trim() === '') continue;
        const answer = JSON.parse(stdout) as SpendAnswer;
        const message = answer.hookSpecificOutput?.additionalContext?.split('\n')[0];
        const stop = answer.continue === false;
        ctx.print(`   Call ${n} Edit ${file}: ${stop ? 'STOP (the session ends)' : 'WARN'}: ${message}`);
        await ctx.pause();
        if (stop) break;
      }
      const { entries, sessionIds } = copyRecords(ctx, project, 'spend-project');
      ctx.print(
        `   The hook recorded ${entries} entries (spend_warning, spend_stop) and what the Claude Code session ${sessionIds.join(', ')} spent`,
      );
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  },
};
