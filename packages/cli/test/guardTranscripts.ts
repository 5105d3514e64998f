import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { runCli } from '../src/main.js';
import type { ScanReport } from '../src/scan/scanReport.js';
import { EXIT_CODES } from '../src/terminal/exitCodes.js';
import { bufferedIo } from './helpers.js';

// Claude Code sessions (2.1.330's record shapes) in which loopguard's hooks answered: for the tests
// of what scan reports of loopguard's own nudges and stops.

/** A nudge as loopguard words it. */
export const NUDGE =
  'Loop detected (same_error): the same action failed with the same error 3 times, since call 1.\nRepeating:\n- call 3: `cat missing.txt` → error "cat: missing.txt: No such file or directory"\nRetrying gives the same failure.';
/** A stop as loopguard words it. */
export const STOP =
  'Stopped (same_error): the loop went on after the nudge; the same action failed with the same error 4 times, since call 1.';
const ERROR = 'Exit code 1\ncat: missing.txt: No such file or directory';

/** A Claude Code session: `calls` failing `cat missing.txt`, with what loopguard's hooks answered after some. */
export function claudeSession(calls: number, after: Record<number, unknown[]>, denied?: number): unknown[] {
  const base = {
    sessionId: 's1',
    cwd: '/tmp/app',
    isSidechain: false,
    timestamp: '2026-11-29T08:00:00.000Z',
  };
  const lines: unknown[] = [{ ...base, type: 'user', message: { role: 'user', content: 'Fix the bug.' } }];
  for (let n = 1; n <= calls; n++) {
    lines.push({
      ...base,
      type: 'assistant',
      message: {
        id: `msg_${n}`,
        role: 'assistant',
        model: 'claude-sonnet-4-5',
        content: [
          { type: 'tool_use', id: `toolu_${n}`, name: 'Bash', input: { command: 'cat missing.txt' } },
        ],
        usage: { input_tokens: 100, output_tokens: 12 },
      },
    });
    const content =
      n === denied ? `PreToolUse:Bash hook error: ${STOP}\nloopguard refused this call.` : ERROR;
    lines.push({
      ...base,
      type: 'user',
      message: {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: `toolu_${n}`, content, is_error: true }],
      },
    });
    lines.push(...(after[n] ?? []));
  }
  return lines;
}
/** The attachment of loopguard's nudge after call `n`. */
export const claudeNudge = (n: number) => ({
  type: 'attachment',
  isSidechain: false,
  attachment: {
    type: 'hook_additional_context',
    content: [NUDGE],
    hookName: 'PostToolUseFailure:Bash',
    toolUseID: `toolu_${n}`,
  },
});
/** The attachment of loopguard's stop at call `n` (after its result or its `PreToolUse` denial). */
export const claudeStop = (n: number, hook = 'PreToolUse') => ({
  type: 'attachment',
  isSidechain: false,
  attachment: {
    type: 'hook_stopped_continuation',
    message: `loopguard: ${STOP}`,
    hookName: `${hook}:Bash`,
    toolUseID: `toolu_${n}`,
    hookEvent: hook,
  },
});

/** `loopguard scan` of `lines` written as a transcript in `dir` (its cwd and HOME): what it printed. */
export async function scanIn(dir: string, lines: unknown[], ...args: string[]): Promise<string> {
  const file = join(dir, 'session.jsonl');
  writeFileSync(file, `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
  const io = bufferedIo({ cwd: dir, env: { NO_COLOR: '1', HOME: dir } });
  const code = await runCli(['scan', file, ...args], io);
  expect(code, io.err()).toBe(EXIT_CODES.ok);
  return io.out();
}

/** {@link scanIn} a new temporary folder. */
export async function scan(lines: unknown[], ...args: string[]): Promise<string> {
  return scanIn(mkdtempSync(join(tmpdir(), 'loopguard-scan-')), lines, ...args);
}

/** `loopguard scan --json` of `lines`, in a new temporary folder. */
export const scanJson = async (lines: unknown[]) => JSON.parse(await scan(lines, '--json')) as ScanReport;
