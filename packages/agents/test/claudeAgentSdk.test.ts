import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { query, type SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { InMemoryStateMachine } from '@loopguard/core';
import type { RunTally } from '@loopguard/core/internal';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureClaudeCode } from '../../cli/test/claudeCode.js';
import { type ScriptedTurn, startFakeAnthropicApi } from '../../cli/test/fakeAnthropicApi.js';
import { type ClaudeAgentLoopGuardOptions, loopGuard } from '../src/claude-agent-sdk/index.js';

// The real Claude Agent SDK, which spawns the pinned Claude Code (the binary it bundles is left out
// of the install: see pnpm-workspace.yaml), fully offline against a scripted Messages API on 127.0.0.1.
let claude = '';
beforeAll(async () => {
  claude = await ensureClaudeCode();
}, 900_000);

interface Drive {
  messages: SDKMessage[];
  bodies: string[];
  guard: ReturnType<typeof loopGuard>;
  cwd: string;
}

async function drive(
  script: (turn: number) => ScriptedTurn,
  options: ClaudeAgentLoopGuardOptions = {},
  scripted: { usage?: Record<string, number>; model?: string } = {},
): Promise<Drive> {
  const bodies: string[] = [];
  const api = await startFakeAnthropicApi(
    (turn, body) => {
      bodies[turn] = JSON.stringify(body.messages ?? []);
      return script(turn);
    },
    scripted.usage === undefined ? {} : { usage: scripted.usage },
  );
  const cwd = mkdtempSync(join(tmpdir(), 'loopguard-agent-sdk-'));
  const guard = loopGuard(options);
  const messages: SDKMessage[] = [];
  try {
    const run = query({
      prompt: 'Summarise missing.txt',
      options: {
        cwd,
        ...(scripted.model === undefined ? {} : { model: scripted.model }),
        hooks: guard.hooks,
        pathToClaudeCodeExecutable: claude,
        permissionMode: 'bypassPermissions',
        allowDangerouslySkipPermissions: true,
        settingSources: [],
        env: {
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          ANTHROPIC_BASE_URL: api.url,
          ANTHROPIC_API_KEY: 'test',
          DISABLE_TELEMETRY: '1',
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
          DISABLE_AUTOUPDATER: '1',
          HOME: mkdtempSync(join(tmpdir(), 'loopguard-claude-home-')),
          ...(process.getuid?.() === 0 ? { IS_SANDBOX: '1' } : {}),
        },
      },
    });
    for await (const message of guard.watch(run)) messages.push(message);
  } finally {
    await api.close();
  }
  return { messages, bodies, guard, cwd };
}

const catMissing: ScriptedTurn = {
  tool: 'Bash',
  input: { command: 'cat missing.txt', description: 'Read the file' },
};

describe('Claude Agent SDK loopGuard (real SDK and Claude Code, scripted API)', () => {
  it('nudges through the hook feedback the model sees, then stops: the next tool call is denied and the run ends', async () => {
    const tallies: RunTally[] = [];
    const stateMachine = Object.assign(new InMemoryStateMachine(), {
      recordRunTally: (tally: RunTally) => {
        tallies.push(tally);
      },
    });
    const { messages, bodies, guard } = await drive(() => catMissing, { stateMachine, taskId: 'T1' });
    // sessions54: the messages' end told the store the run ended, with its tool calls
    expect(tallies.at(-1)).toMatchObject({ adapter: 'claude-agent-sdk', ended: true });
    const [stop] = stateMachine.listContextEntries({ topics: ['loop_stop'] });
    expect(tallies.at(-1)?.toolCalls).toBe(stop?.metadata.toolCall);
    expect(tallies.at(-1)?.toolCalls).toBeGreaterThan(0);
    expect(guard.run.nudges).toHaveLength(1);
    expect(guard.run.nudges[0]).toContain('Loop detected (same_error)');
    // The request after the failure that made the nudge carries it as hook context; none before does.
    const nudged = bodies.findIndex((body) => body.includes('Loop detected'));
    expect(nudged).toBeGreaterThanOrEqual(2);
    expect(bodies[nudged]).toContain(
      'PostToolUseFailure:Bash hook additional context: Loop detected (same_error)',
    );
    expect(guard.stopVerdict).toMatchObject({ action: 'stop', loopType: 'same_error' });
    // Claude Code 2.1.330 ignores continue: false from PostToolUseFailure: the model is asked once
    // more, and the PreToolUse hook denies that call with continue: false, which ends the run.
    expect(bodies).toHaveLength(nudged + 2);
    const denied = messages.at(-2) as { type: string; message: { content: Array<{ content: string }> } };
    expect(denied.type).toBe('user');
    expect(denied.message.content[0]?.content).toContain('loopguard stopped this run: Stopped (same_error)');
    expect(messages.at(-1)).toMatchObject({ type: 'result', subtype: 'success', stop_reason: 'tool_use' });
    expect(stateMachine.listContextEntries().map((entry) => entry.topic)).toEqual([
      'loop_stop',
      'loop_nudge',
      'run_started',
    ]);
  }, 600_000);

  it('ends the run at once when the stop comes from a successful tool call (PostToolUse continue: false)', async () => {
    const { messages, bodies, guard } = await drive(() => ({
      tool: 'Bash',
      input: { command: 'echo same', description: 'Print' },
    }));
    const nudged = bodies.findIndex((body) => body.includes('Loop detected'));
    expect(nudged).toBeGreaterThanOrEqual(2);
    expect(bodies[nudged]).toContain(
      'PostToolUse:Bash hook additional context: Loop detected (repeated_action)',
    );
    expect(guard.stopVerdict).toMatchObject({ action: 'stop', loopType: 'repeated_action' });
    expect(bodies).toHaveLength(nudged + 1); // no model call after the stop
    expect(messages.at(-1)).toMatchObject({ type: 'result' });
  }, 600_000);

  it('leaves a progressing run alone', async () => {
    const script = (turn: number): ScriptedTurn =>
      [
        { tool: 'Bash', input: { command: 'echo one > one.txt', description: 'Write one' } },
        { tool: 'Bash', input: { command: 'echo two > two.txt', description: 'Write two' } },
        { tool: 'Bash', input: { command: 'ls', description: 'List files' } },
      ][turn] ?? { text: 'Both files are written.' };
    const { messages, guard } = await drive(script);
    expect(guard.run.nudges).toEqual([]);
    expect(guard.stopVerdict).toBeNull();
    const result = messages.at(-1) as { type: string; subtype?: string; result?: string };
    expect(result).toMatchObject({ type: 'result', subtype: 'success', result: 'Both files are written.' });
    expect(guard.run.detector.stepCount).toBe(7); // 3 actions + 3 observations + the final text (watch)
  }, 600_000);
});

describe('Claude Agent SDK loopGuard: the spend option (the usage of each assistant message)', () => {
  // Every reply reports 100,000 input tokens and 1 output token in its message_start, 12 output tokens
  // in its message_delta. The SDK's assistant messages carry the usage known when the content block
  // ended: message_start's; the final output counts come in the result message's usage.
  // claude-sonnet-4-5 in the pricing library: $3 / $15 per million, $0.300015 a reply.
  const writes = (turn: number): ScriptedTurn =>
    turn < 8
      ? { tool: 'Write', input: { file_path: `file${turn}.txt`, content: `${turn}\n` } }
      : { text: 'All files written.' };

  it('warns at 80 % in the next PostToolUse, then stops the run at its budget, recording both', async () => {
    const stateMachine = new InMemoryStateMachine();
    const { messages, bodies, guard } = await drive(
      writes,
      { stateMachine, taskId: 'T1', spend: { session: { maxCostUsd: 1 } } },
      { usage: { input_tokens: 100_000, output_tokens: 1 }, model: 'claude-sonnet-4-5' },
    );
    // replies 1-3 cost $0.90: the warning follows the third tool call; the fourth reaches $1.20
    const warned = bodies.findIndex((body) =>
      body.includes('you have spent $0.90 of $1.00 on this run (90 %)'),
    );
    expect(warned).toBe(3);
    expect(bodies[warned]).toContain('PostToolUse:Write hook additional context: loopguard: you have spent');
    expect(guard.spendStopVerdict?.message).toContain('this run reached its budget ($1.20 of $1.00)');
    expect(guard.stopVerdict).toBeNull();
    expect(bodies).toHaveLength(4); // the fourth tool call's PostToolUse ends the run
    expect(messages.at(-1)).toMatchObject({ type: 'result' });
    const entries = stateMachine.listContextEntries({ topics: ['spend_warning', 'spend_stop'] }).reverse();
    expect(entries.map((e) => e.topic)).toEqual(['spend_warning', 'spend_stop']);
    expect(entries[1]?.metadata).toMatchObject({
      spent: { replies: 4, inputTokens: 400_000, outputTokens: 4 },
    });
  }, 600_000);

  it('counts the output tokens the scripted API sent: the result message adds what the replies reported only as they started', async () => {
    const { messages, guard } = await drive(
      (turn) => (turn < 2 ? writes(turn) : { text: 'All files written.' }),
      { spend: { session: { maxCostUsd: 100 } } }, // a money cap: the pricing library loads
      { usage: { input_tokens: 1000, output_tokens: 1 }, model: 'claude-sonnet-4-5' },
    );
    const result = messages.at(-1) as { type: string; usage?: { output_tokens?: number } };
    expect(result).toMatchObject({ type: 'result', subtype: 'success', usage: { output_tokens: 36 } });
    expect(guard.run.spend?.spent).toMatchObject({
      replies: 3,
      tokens: 3036,
      inputTokens: 3000,
      outputTokens: 36,
      unpricedTokens: 0,
    });
    expect(guard.run.spend?.spent?.costUsd).toBeCloseTo(0.00954, 9);
  }, 600_000);
});
