import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../src/terminal/exitCodes.js';
import { ccusageTotals } from './ccusage.js';
import { claudeEnv, ensureClaudeCode, runClaudePrint } from './claudeCode.js';
import { type ScriptedTurn, startFakeAnthropicApi } from './fakeAnthropicApi.js';
import { hookLog, spendState } from './hookHelpers.js';
import { loopguard, stored, tempRepo } from './runHelpers.js';

// The spend guard with a real Claude Code, offline against a scripted Messages API whose replies
// report 100,000 input tokens (message_start) and 12 output tokens (message_delta, the count Claude
// Code writes to its transcript). claude-sonnet-4-5 costs $3 per million input tokens and $15 per
// million output tokens in the pricing library: $0.30018 a reply.
let claude = '';
beforeAll(async () => {
  claude = await ensureClaudeCode();
}, 900_000);

/**
 * A model that makes progress: a new file every turn, done after 8 turns. Write runs inside Claude
 * Code at once: its PostToolUse comes before Claude Code has written the reply that asked for it.
 */
const progress = (turn: number): ScriptedTurn =>
  turn < 8
    ? { tool: 'Write', input: { file_path: `file${turn}.txt`, content: `${turn}\n` } }
    : { text: 'All files written.' };

/** How `init claude` installs the hooks: its default fast path (`mcp_tool` hooks) or command hooks. */
type HookPath = 'fast path' | 'command hooks';

/** Runs `sessions` sessions of `claude -p` one after the other in a repository with `config`; returns the last. */
async function claudeWithBudget(config: string, path: HookPath, model = 'claude-sonnet-4-5', sessions = 1) {
  const { dir } = tempRepo('');
  const home = mkdtempSync(join(tmpdir(), 'loopguard-claude-home-'));
  writeFileSync(join(dir, 'loopguard.config.yaml'), config);
  // On the fast path Claude Code calls the hook before it writes the reply that asked for the tool
  // call: the guard waits for it (the call's tool_use_id in the transcript), so both paths count alike.
  const flags = path === 'command hooks' ? ['--command-hooks'] : [];
  const init = await loopguard(dir, ['init', 'claude', '--project', ...flags], { HOME: home });
  expect(init.code, init.stderr).toBe(0);
  const api = await startFakeAnthropicApi(progress, { usage: { input_tokens: 100_000, output_tokens: 1 } });
  try {
    for (let session = 1; session < sessions; session++)
      await runClaudePrint(claude, dir, api.url, home, { extraArgs: ['--model', model] });
    const { result, resultLine } = await runClaudePrint(claude, dir, api.url, home, {
      extraArgs: ['--model', model],
    });
    return { dir, home, result, resultLine, received: api.conversations.map((c) => JSON.stringify(c)) };
  } finally {
    await api.close();
  }
}

describe.each<HookPath>(['fast path', 'command hooks'])(
  'the spend guard with a real Claude Code (offline), %s',
  (path) => {
    it('warns the session at 80 % of its budget (in the next request) and stops it at the budget', async () => {
      const { dir, result, resultLine, received } = await claudeWithBudget(
        'spend:\n  session:\n    maxCostUsd: 1\n',
        path,
      );
      expect(result.exitCode, String(result.stderr)).toBe(0);
      // replies 1-3 cost $0.90: the warning follows the third tool call; the fourth reaches $1.20
      const warned = received.findIndex((r) =>
        r.includes('you have spent $0.90 of $1.00 on this session (90 %)'),
      );
      expect(warned).toBe(3);
      expect(received).toHaveLength(4);
      expect(resultLine.terminal_reason).toBe('hook_stopped');
      const { entries } = spendState(dir);
      expect(entries.map((e) => e.topic)).toEqual(['spend_warning', 'spend_stop']);
      expect(entries[1]).toMatchObject({
        content: expect.stringContaining('this session reached its budget ($1.20 of $1.00)'),
        metadata: {
          scope: 'session',
          reason: 'cap',
          spent: { replies: 4, inputTokens: 400_000, outputTokens: 48 },
        },
      });
      expect(received[3]).toContain('hook additional context: loopguard: you have spent');
      expect(hookLog(dir)).toEqual([]);
    }, 600_000);

    it("qa51: a session started after the project's day is spent is denied its first call, and every door lists it as stopped on spend", async () => {
      const { dir, home } = await claudeWithBudget(
        'spend:\n  projectDay:\n    maxTokens: 250000\n',
        path,
        'claude-sonnet-4-5',
        2,
      );
      const status = await loopguard(dir, ['status', '--json']);
      const { sessions, counts } = JSON.parse(status.stdout).sessions;
      expect(counts).toMatchObject({ stopped_on_spend: 2, running: 0 });
      const [second] = sessions;
      // its first three calls Write files of the first session's without reading them: Claude Code
      // refuses them before any hook ran, and its PostToolBatch brings them (refused69); the fourth,
      // the first to reach PreToolUse, is denied on the spent day
      expect(second.summary).toMatch(
        /^stopped on spend at call 4 \(budget reached\), 3 tool calls ran, 1 nudge, \$/,
      );
      const one = await loopguard(dir, ['status', '--session', second.sessionId]);
      expect(one.code).toBe(EXIT_CODES.sessionStoppedOnSpend);
      const projects = join(home, '.claude', 'projects');
      const scan = await loopguard(dir, ['scan', projects, '--json', '--no-cache'], { HOME: home });
      const scanned = JSON.parse(scan.stdout).sessions.find(
        (s: { sessionId: string }) => s.sessionId === second.sessionId,
      );
      expect(scanned.record.summary).toBe(second.summary);
      expect(hookLog(dir)).toEqual([]);
    }, 600_000);

    it('prices the replies under a token budget too, and never stops a session under its budget', async () => {
      const { dir, result, resultLine, received } = await claudeWithBudget(
        'spend:\n  session:\n    maxTokens: 10000000\n',
        path,
      );
      expect(result.exitCode, String(result.stderr)).toBe(0);
      expect(resultLine).toMatchObject({ subtype: 'success', result: 'All files written.' });
      expect(received).toHaveLength(9);
      const { ledgers, entries } = spendState(dir);
      expect(entries).toEqual([]);
      // nine replies, each once, though Claude Code writes a reply as one record per content block
      expect(ledgers[0]?.ledger.totals).toMatchObject({
        replies: 9,
        inputTokens: 900_000,
        costUsd: expect.closeTo(9 * 0.30018, 9),
        unpricedTokens: 0,
      });
    }, 600_000);

    it('tells the session at its first reply that a dollar budget cannot price its model, and goes on', async () => {
      const { dir, result, resultLine, received } = await claudeWithBudget(
        'spend:\n  session:\n    maxCostUsd: 0.05\n',
        path,
        'in-house-model',
      );
      expect(result.exitCode, String(result.stderr)).toBe(0);
      expect(resultLine).toMatchObject({ subtype: 'success', result: 'All files written.' });
      expect(received).toHaveLength(9);
      const told = received.findIndex((r) =>
        r.includes('this session cannot be held to its budget of $0.05: the cost of'),
      );
      expect(told).toBe(1); // after the first tool call, in the next request
      // told once: the last request's history holds it once
      expect(received.at(-1)?.split('cannot be held to its budget').length).toBe(2);
      expect(spendState(dir).entries).toMatchObject([
        {
          topic: 'spend_warning',
          metadata: { reason: 'unknown_price', spent: { unpricedModels: ['in-house-model'] } },
        },
      ]);
      expect(hookLog(dir)).toEqual([]);
    }, 600_000);
  },
);

describe('loopguard run --agent-stream claude around a real Claude Code (offline)', () => {
  // Replies of 1,000 input tokens each; Claude Code's stream-json reports each reply's start
  // (1 output token), its `result` the final 12 a reply (model_usage_since_last_result).
  const threeReplies = (turn: number): ScriptedTurn =>
    turn < 2 ? { tool: 'Write', input: { file_path: `f${turn}.txt`, content: 'x\n' } } : { text: 'Done.' };

  /** `loopguard run --max-tokens <cap>` around `claude -p` answered by `script`. */
  async function runClaude(
    script: (turn: number, body: { messages?: unknown[] }) => ScriptedTurn,
    cap: number,
  ) {
    const { dir } = tempRepo('');
    const home = mkdtempSync(join(tmpdir(), 'loopguard-claude-home-'));
    const api = await startFakeAnthropicApi(script, { usage: { input_tokens: 1000, output_tokens: 1 } });
    const claudeArgs = ['-p', '--model', 'claude-sonnet-4-5', '--dangerously-skip-permissions'];
    try {
      const result = await loopguard(
        dir,
        ['run', '--prompt-file', 'PROMPT.md', '--agent-stream', 'claude', '--max-tokens', String(cap)].concat(
          [
            '--iteration-timeout',
            '3m',
            '--',
            claude,
            ...claudeArgs,
            '--output-format',
            'stream-json',
            '--verbose',
          ],
        ),
        { ...claudeEnv(api.url, home), LOOPGUARD_HOOK: '' },
      );
      return { dir, home, result, requests: api.requests };
    } finally {
      await api.close();
    }
  }

  it('counts the output tokens the scripted API sent (reconciled at the result), as ccusage does, and stops at --max-tokens', async () => {
    // 3 × 1,000 input + 3 × 12 output = 3,036 tokens: the cap is reached at the result, not before
    const { dir, home, result, requests } = await runClaude(threeReplies, 3036);
    expect(result.code, result.stderr).toBe(EXIT_CODES.spendStopped);
    expect(requests).toBe(3);
    expect(stored(dir).iterations).toHaveLength(1);
    const { entries } = spendState(dir);
    expect(entries.map((e) => e.topic)).toEqual(['spend_warning', 'spend_stop']);
    // the third reply's start (3,003 tokens) warns; the result's 33 more output tokens stop
    expect(entries[0]?.metadata).toMatchObject({ spent: { replies: 3, outputTokens: 3 } });
    expect(entries[1]).toMatchObject({
      content: expect.stringContaining('this run reached its budget (3,036 of 3,036 tokens)'),
      metadata: { spent: { replies: 3, tokens: 3036, inputTokens: 3000, outputTokens: 36 } },
    });
    // $3 / $15 per million: what Claude Code's result reports as total_cost_usd
    expect(entries[1]?.metadata.spent.costUsd).toBeCloseTo(0.00954, 9);
    // ccusage reads the same session's transcript (the final 12 a reply) to the same total
    const [project] = readdirSync(join(home, '.claude', 'projects'));
    const [session] = readdirSync(join(home, '.claude', 'projects', project as string));
    expect((await ccusageTotals(home)).get(`claude ${(session as string).replace('.jsonl', '')}`)).toBe(3036);
  }, 600_000);

  it("counts a background subagent's replies once and at their final output count (two results)", async () => {
    // the main thread: an Agent call, a text, then a text after the subagent's notification; the
    // subagent: a Write, then a text. Five replies: 5,000 input and 60 output tokens.
    const withSubagent = (turn: number, body: { messages?: unknown[] }): ScriptedTurn => {
      const text = JSON.stringify(body.messages);
      if (!text.includes('Fix the bug'))
        return text.includes('"tool_use"')
          ? { text: 'Sub done.' }
          : { tool: 'Write', input: { file_path: 'sub.txt', content: 'x\n' } };
      return turn === 0
        ? {
            tool: 'Agent',
            input: { description: 'sub', prompt: 'Write sub.txt', subagent_type: 'general-purpose' },
          }
        : { text: 'Done.' };
    };
    const { dir, result, requests } = await runClaude(withSubagent, 5060);
    expect(result.code, result.stderr).toBe(EXIT_CODES.spendStopped);
    expect(requests).toBe(5);
    const { entries } = spendState(dir);
    expect(entries.at(-1)).toMatchObject({
      topic: 'spend_stop',
      metadata: { spent: { replies: 5, tokens: 5060, inputTokens: 5000, outputTokens: 60 } },
    });
  }, 600_000);
});
