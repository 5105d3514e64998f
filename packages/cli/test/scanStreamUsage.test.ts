import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../src/main.js';
import type { ScanReport } from '../src/scan/scanReport.js';
import { EXIT_CODES } from '../src/terminal/exitCodes.js';
import { bufferedIo } from './helpers.js';

// A Claude Code `stream-json` log (what `loopguard run --agent-stream` keeps) counts and prices its
// tokens as the spend guard reads the same stream (issue 35): each `assistant` event carries its
// reply's usage as it started (1 output token), the `result` the final counts per model.

const MODEL = 'claude-sonnet-4-5';

/** `calls` replies of 100 input tokens and 12 output tokens, as Claude Code 2.1.330 streams them. */
function streamLog(calls: number): string {
  const lines: unknown[] = [
    { type: 'system', subtype: 'init', session_id: 's1', cwd: '/tmp/app', model: MODEL },
  ];
  for (let n = 1; n <= calls; n++) {
    lines.push({
      type: 'assistant',
      session_id: 's1',
      message: {
        id: `msg_${n}`,
        model: MODEL,
        content: [{ type: 'tool_use', id: `toolu_${n}`, name: 'Bash', input: { command: `ls dir${n}` } }],
        usage: { input_tokens: 100, output_tokens: 1 },
      },
    });
    lines.push({
      type: 'user',
      session_id: 's1',
      message: { content: [{ type: 'tool_result', tool_use_id: `toolu_${n}`, content: `file${n}.txt` }] },
    });
  }
  const final = {
    inputTokens: 100 * calls,
    outputTokens: 12 * calls,
    cacheReadInputTokens: 0,
    cacheCreationInputTokens: 0,
  };
  lines.push({
    type: 'result',
    subtype: 'success',
    session_id: 's1',
    uuid: 'r1',
    usage: { input_tokens: 100 * calls, output_tokens: 12 * calls },
    modelUsage: { [MODEL]: final },
    model_usage_since_last_result: { [MODEL]: final },
  });
  return `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`;
}

describe('scan of a Claude Code stream-json log', () => {
  it("counts the replies' final tokens and prices them from their model", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'loopguard-scan-stream-'));
    const file = join(dir, 'output.log');
    writeFileSync(file, streamLog(4));
    const io = bufferedIo({ cwd: dir, env: { HOME: dir, NO_COLOR: '1' } });
    expect(await runCli(['scan', file, '--json'], io), io.err()).toBe(EXIT_CODES.ok);
    const report = JSON.parse(io.out()) as ScanReport;
    const [session] = report.sessions;
    expect(session).toMatchObject({
      format: 'claude-stream-json',
      toolCalls: 4,
      tokens: 448,
      unpricedTokens: 0,
    });
    expect(session?.costUsd).toBeGreaterThan(0);
    // priced as the same replies in a transcript would be: $3 in, $15 out per million (Sonnet 4.5)
    expect(session?.costUsd).toBeCloseTo((400 * 3 + 48 * 15) / 1_000_000, 8);
    const terminal = bufferedIo({ cwd: dir, env: { HOME: dir, NO_COLOR: '1' } });
    expect(await runCli(['scan', file], terminal), terminal.err()).toBe(EXIT_CODES.ok);
    expect(terminal.out()).not.toContain('is unknown');
  });

  it("reads a subagent's calls as its run's, as in a transcript: four subagents failing once each are no loop of the session", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'loopguard-scan-stream-'));
    const file = join(dir, 'output.log');
    const subagents = ['task-a', 'task-b', 'task-c', 'task-d'].flatMap((parent) => [
      {
        type: 'assistant',
        parent_tool_use_id: parent,
        message: {
          content: [{ type: 'tool_use', id: `${parent}-1`, name: 'Bash', input: { command: 'npm test' } }],
        },
      },
      {
        type: 'user',
        parent_tool_use_id: parent,
        message: {
          content: [
            {
              type: 'tool_result',
              tool_use_id: `${parent}-1`,
              content: 'Error: expected 2, got 3',
              is_error: true,
            },
          ],
        },
      },
    ]);
    const log = streamLog(2).split('\n');
    writeFileSync(
      file,
      [...log.slice(0, -2), ...subagents.map((line) => JSON.stringify(line)), ...log.slice(-2)].join('\n'),
    );
    const io = bufferedIo({ cwd: dir, env: { HOME: dir, NO_COLOR: '1' } });
    expect(await runCli(['scan', file, '--json'], io), io.err()).toBe(EXIT_CODES.ok);
    const [session] = (JSON.parse(io.out()) as ScanReport).sessions;
    expect(session).toMatchObject({ toolCalls: 2, loops: [] });
  });
});
