import { execFileSync } from 'node:child_process';
import { appendFileSync, chmodSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { openLoopGuardDatabase } from '@loopguard/sqlite';
import { describe, expect, it } from 'vitest';
import { projectDaySpendKey } from '../src/hook/guardSpend.js';
import { readHookConfig } from '../src/hook/hookConfig.js';
import { answerHookEvent } from '../src/hook/runHook.js';
import { readTranscriptUsage } from '../src/hook/transcriptUsage.js';
import { McpHookServer } from '../src/mcp/McpHookServer.js';
import { statuslineMain } from '../src/statusline/statuslineMain.js';
import {
  claudeEvent,
  claudeFailingCall,
  hookLog,
  mcpHookCall,
  spendState,
  trustedTranscript,
} from './hookHelpers.js';
import { loopguard } from './runHelpers.js';

const T0 = Date.parse('2026-11-28T10:00:00Z');

/** A project with `config` as its loopguard.config.yaml and an empty transcript. */
function project(config: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'loopguard-spend-'));
  writeFileSync(join(dir, 'loopguard.config.yaml'), config);
  writeFileSync(join(dir, 'transcript.jsonl'), '');
  return dir;
}

/** A reply of `tokens` input tokens as Claude Code writes it: one record per content block. */
function reply(id: string, tokens: number, blocks = 2, model = 'claude-sonnet-4-5'): string {
  const record = {
    type: 'assistant',
    timestamp: new Date(T0).toISOString(),
    message: { id, model, role: 'assistant', usage: { input_tokens: tokens, output_tokens: 0 }, content: [] },
  };
  return `${JSON.stringify(record)}\n`.repeat(blocks);
}

let call = 0;

/** A `PostToolUse` of a new, different tool call (no loop), answered at `now`. */
async function afterTool(dir: string, session = 's1', now = T0): Promise<string> {
  call++;
  const event = claudeEvent(dir, session, 'PostToolUse', {
    tool_name: ['Read', 'Write', 'Bash', 'Grep'][call % 4],
    tool_input: { file_path: `src/file${call}.ts` },
    tool_response: `content ${call} ${'x'.repeat(call * 7)}`,
  });
  return answerHookEvent('claude', JSON.stringify(event), { env: {}, cwd: dir, now: () => now });
}

describe('the spend guard in the hook', () => {
  it('reads only the new replies, counts each message.id once, warns then stops', async () => {
    const dir = project('spend:\n  session:\n    maxTokens: 1000\n');
    const transcript = join(dir, 'transcript.jsonl');
    appendFileSync(transcript, reply('msg_1', 500));
    expect(await afterTool(dir)).toBe('');
    // the same reply again (a resumed session rewrites it) and a new one: 500 + 300
    appendFileSync(transcript, reply('msg_1', 500) + reply('msg_2', 300));
    const warning = JSON.parse(await afterTool(dir));
    expect(warning.hookSpecificOutput.additionalContext).toContain(
      'you have used 800 of 1,000 tokens on this session (80 %)',
    );
    expect(await afterTool(dir)).toBe(''); // warned once
    appendFileSync(transcript, reply('msg_3', 200, 1));
    const stop = JSON.parse(await afterTool(dir));
    expect(stop).toMatchObject({
      continue: false,
      stopReason: expect.stringContaining('this session reached its budget (1,000 of 1,000 tokens)'),
    });
    const { ledgers, entries } = spendState(dir);
    expect(entries.map((e) => e.topic)).toEqual(['spend_warning', 'spend_stop']);
    expect(ledgers[0]?.ledger.totals).toMatchObject({ replies: 3, tokens: 1000 });
    // shown by status and recoveries
    const db = join(dir, '.loopguard', 'state.db');
    const status = await loopguard(dir, ['status', '--db', db]);
    expect(status.stdout).toContain('spend: 1 warning, 1 stop (loopguard recoveries --topic spend_stop)');
    const json = JSON.parse((await loopguard(dir, ['status', '--db', db, '--json'])).stdout);
    expect(json.spend).toEqual({ warnings: 1, stops: 1 });
    const recoveries = await loopguard(dir, ['recoveries', '--db', db, '--topic', 'spend_stop', '--json']);
    expect(recoveries.code, recoveries.stderr).toBe(0);
    expect(JSON.parse(recoveries.stdout).recoveries).toMatchObject([
      { topic: 'spend_stop', action: 'spend_stop', taskId: 'claude:s1' },
    ]);
  });

  it('records the tool call its warning and its stop fell at, which status says as every door does', async () => {
    const dir = project('spend:\n  session:\n    maxTokens: 1000\n');
    const transcript = join(dir, 'transcript.jsonl');
    for (const tokens of [300, 500, 100, 200]) {
      appendFileSync(transcript, reply(`msg_${tokens}`, tokens, 1));
      await afterTool(dir, 'calls');
    }
    expect(spendState(dir).entries.map((e) => [e.topic, e.metadata.toolCall])).toEqual([
      ['spend_warning', 2],
      ['spend_stop', 4],
    ]);
    const status = await loopguard(dir, ['status', '--session', 'calls']);
    expect(status.stdout).toContain('stopped on spend at call 4 (budget reached), 4 tool calls ran');
  });

  it('a session stopped at a failing call (Claude Code ignores continue: false there) is denied its next calls before they run', async () => {
    const dir = project('spend:\n  session:\n    maxTokens: 1000\n');
    appendFileSync(join(dir, 'transcript.jsonl'), reply('msg_1', 1200, 1));
    const answer = (event: unknown) =>
      answerHookEvent('claude', JSON.stringify(event), { env: {}, cwd: dir, now: () => T0 });
    const failed = claudeEvent(dir, 'failing', 'PostToolUseFailure', {
      tool_name: 'Bash',
      tool_input: { command: 'cat b.txt' },
      error: 'Exit code 1\ncat: b.txt: No such file or directory',
      tool_use_id: 'toolu_1',
    });
    expect(JSON.parse(await answer(failed))).toMatchObject({ continue: false });
    for (const [n, command] of ['grep -q x nofile.c', 'node -e "process.exit(3)"'].entries()) {
      // the reply that asks for the call, written before Claude Code calls the hook
      appendFileSync(join(dir, 'transcript.jsonl'), reply(`msg_${n + 2}`, 300, 1));
      const next = claudeEvent(dir, 'failing', 'PreToolUse', {
        tool_name: 'Bash',
        tool_input: { command },
        tool_use_id: `toolu_${n + 2}`,
      });
      expect(JSON.parse(await answer(next)), command).toMatchObject({
        continue: false,
        hookSpecificOutput: {
          permissionDecision: 'deny',
          permissionDecisionReason: expect.stringContaining('this session reached its budget ('),
        },
      });
    }
    // the stop is recorded where it fell and at each call it denied (the next after the one that ran:
    // Claude Code ends the session there, the second denial is this test's, at the call after:
    // sess66); the denials ran nothing, and the replies that asked for them are counted (no later
    // event would)
    const { entries, ledgers } = spendState(dir);
    expect(entries.map((e) => [e.topic, e.metadata.toolCall])).toEqual([
      ['spend_stop', 1],
      ['spend_stop', 2],
      ['spend_stop', 3],
    ]);
    expect(ledgers[0]?.ledger.totals).toMatchObject({ replies: 3, tokens: 1800 });
    const status = await loopguard(dir, ['status', '--session', 'failing']);
    expect(status.stdout).toContain('stopped on spend at call 1 (budget reached), 1 tool call ran');
  });

  it('a budget lowered in the configuration between two calls stops the session at the next call, recorded there', async () => {
    const dir = project('spend:\n  session:\n    maxTokens: 100000\n');
    appendFileSync(join(dir, 'transcript.jsonl'), reply('msg_1', 1200, 1));
    await afterTool(dir, 'lowered');
    writeFileSync(join(dir, 'loopguard.config.yaml'), 'spend:\n  session:\n    maxTokens: 1000\n');
    const next = claudeEvent(dir, 'lowered', 'PreToolUse', {
      tool_name: 'Bash',
      tool_input: { command: 'npm test' },
      tool_use_id: 'toolu_2',
    });
    const reply2 = JSON.parse(
      await answerHookEvent('claude', JSON.stringify(next), { env: {}, cwd: dir, now: () => T0 }),
    );
    expect(reply2).toMatchObject({ continue: false, hookSpecificOutput: { permissionDecision: 'deny' } });
    expect(spendState(dir).entries.map((e) => [e.topic, e.metadata.toolCall])).toEqual([['spend_stop', 2]]);
    const status = await loopguard(dir, ['status', '--session', 'lowered']);
    expect(status.stdout).toContain('stopped on spend at call 2 (budget reached), 1 tool call ran');
  });

  it("trust46: a new session (the model's own `claude -p`) in a project whose day is spent is denied its first call", async () => {
    const dir = project('spend:\n  projectDay:\n    maxTokens: 1000\n');
    appendFileSync(join(dir, 'transcript.jsonl'), reply('a', 1200, 1));
    expect(JSON.parse(await afterTool(dir, 'spent'))).toMatchObject({ continue: false });
    for (const session of ['child-1', 'child-2']) {
      writeFileSync(join(dir, 'transcript.jsonl'), reply(`${session}-reply`, 10, 1));
      const first = claudeEvent(dir, session, 'PreToolUse', {
        tool_name: 'Bash',
        tool_input: { command: 'npm test' },
        tool_use_id: `toolu_${session}`,
      });
      const answer = await answerHookEvent('claude', JSON.stringify(first), {
        env: {},
        cwd: dir,
        now: () => T0,
      });
      expect(answer, session).not.toBe('');
      expect(JSON.parse(answer)).toMatchObject({
        continue: false,
        hookSpecificOutput: {
          permissionDecision: 'deny',
          permissionDecisionReason: expect.stringContaining('this project today reached its budget ('),
        },
      });
    }
    // each denial recorded (and each session listed as stopped on spend, qa51)
    expect(spendState(dir).entries.map((e) => [e.topic, e.metadata.sessionId, e.metadata.scope])).toEqual([
      ['spend_stop', 'spent', 'project_day'],
      ['spend_stop', 'child-1', 'project_day'],
      ['spend_stop', 'child-2', 'project_day'],
    ]);
  });

  it('qa51: a new session denied its first call by the spent day is listed by every door as stopped on spend', async () => {
    const dir = project('spend:\n  projectDay:\n    maxTokens: 1000\n');
    appendFileSync(join(dir, 'transcript.jsonl'), reply('a', 1200, 1));
    await afterTool(dir, 'spent');
    writeFileSync(join(dir, 'transcript.jsonl'), reply('child-reply', 10, 1));
    const first = claudeEvent(dir, 'child', 'PreToolUse', {
      tool_name: 'Bash',
      tool_input: { command: 'npm test' },
      tool_use_id: 'toolu_child',
    });
    const answer = await answerHookEvent('claude', JSON.stringify(first), {
      env: {},
      cwd: dir,
      now: () => T0,
    });
    expect(JSON.parse(answer)).toMatchObject({ hookSpecificOutput: { permissionDecision: 'deny' } });
    const sentence = 'stopped on spend at call 1 (budget reached), 0 tool calls ran, $0.00003';
    const status = await loopguard(dir, ['status', '--session', 'child']);
    expect(status.code).toBe(11);
    expect(status.stdout).toContain(sentence);
    const listed = JSON.parse((await loopguard(dir, ['status', '--json'])).stdout);
    expect(listed.sessions.counts.stopped_on_spend).toBe(2);
    const child = listed.sessions.sessions.find((s: { sessionId: string }) => s.sessionId === 'child');
    expect(child).toMatchObject({ verdict: 'stopped_on_spend', toolCalls: 0, stop: { call: 1 } });
    expect(child.summary).toContain(sentence);
    let line = '';
    await statuslineMain(
      Readable.from([JSON.stringify({ session_id: 'child', cwd: dir })]),
      (text) => {
        line += text;
      },
      {},
    );
    expect(line).toContain(`loopguard: ${sentence}`);
  });

  it('a session under its budget is never denied before a call', async () => {
    const dir = project('spend:\n  session:\n    maxTokens: 1000\n');
    appendFileSync(join(dir, 'transcript.jsonl'), reply('msg_1', 500, 1));
    await afterTool(dir, 'under');
    const next = claudeEvent(dir, 'under', 'PreToolUse', {
      tool_name: 'Bash',
      tool_input: { command: 'npm test' },
      tool_use_id: 'toolu_9',
    });
    expect(await answerHookEvent('claude', JSON.stringify(next), { env: {}, cwd: dir, now: () => T0 })).toBe(
      '',
    );
  });

  it('a money budget speaks in dollars from the pricing library, naming the tokens it cannot price', async () => {
    const dir = project('spend:\n  session:\n    maxCostUsd: 1\n');
    // claude-sonnet-4-5: $3 per million input tokens below its long-context tier
    appendFileSync(
      join(dir, 'transcript.jsonl'),
      reply('a', 150_000) + reply('b', 150_000) + reply('c', 1000, 1, 'in-house-model'),
    );
    const warning = JSON.parse(await afterTool(dir));
    expect(warning.hookSpecificOutput.additionalContext).toContain(
      'you have spent $0.90 of $1.00 on this session (90 %)',
    );
    expect(warning.hookSpecificOutput.additionalContext).toContain(
      'The cost of 1,000 tokens is unknown (no price for in-house-model)',
    );
  });

  it('a per-model price in the configuration prices a model the library does not know', async () => {
    const dir = project(
      'spend:\n  session:\n    maxCostUsd: 1\n  prices:\n    in-house-model: { input: 10, output: 10 }\n',
    );
    appendFileSync(join(dir, 'transcript.jsonl'), reply('a', 100_000, 1, 'in-house-model'));
    const stop = JSON.parse(await afterTool(dir));
    expect(stop.stopReason).toContain('($1.00 of $1.00)');
  });

  it('the project-day budget adds every session of the day', async () => {
    const dir = project('spend:\n  projectDay:\n    maxTokens: 1000\n  warnAt: 0.9\n');
    appendFileSync(join(dir, 'transcript.jsonl'), reply('a', 600));
    expect(await afterTool(dir, 's1')).toBe('');
    writeFileSync(join(dir, 'transcript.jsonl'), reply('b', 600));
    const stop = JSON.parse(await afterTool(dir, 's2'));
    expect(stop.stopReason).toContain('this project today reached its budget (1,200 of 1,000 tokens)');
    expect(spendState(dir).ledgers.map((l) => l.scope)).toEqual([
      projectDaySpendKey(T0),
      'session:claude:s1',
      'session:claude:s2',
    ]);
    // the next day starts afresh
    writeFileSync(join(dir, 'transcript.jsonl'), reply('c', 100));
    expect(await afterTool(dir, 's3', T0 + 86_400_000)).toBe('');
  });

  it('the burn-rate alarm warns when the tokens a minute reach the threshold', async () => {
    const dir = project('spend:\n  burnRate:\n    tokensPerMinute: 1000\n    forMinutes: 1\n');
    appendFileSync(join(dir, 'transcript.jsonl'), reply('a', 1500));
    const alarm = JSON.parse(await afterTool(dir));
    expect(alarm.hookSpecificOutput.additionalContext).toContain(
      '1,500 tokens a minute (alarm at 1,000) over the last 1 minutes',
    );
    expect(spendState(dir).entries[0]?.metadata).toMatchObject({
      reason: 'burn_rate',
      burnRate: { tokensPerMinute: 1500, forMinutes: 1 },
    });
  });

  it('at the end of a turn it counts only: the warning waits for the next tool call, where the model hears it', async () => {
    const dir = project('spend:\n  session:\n    maxTokens: 1000\n');
    appendFileSync(join(dir, 'transcript.jsonl'), reply('a', 900));
    const stop = claudeEvent(dir, 's1', 'Stop', { last_assistant_message: 'Done.' });
    expect(await answerHookEvent('claude', JSON.stringify(stop), { env: {}, cwd: dir, now: () => T0 })).toBe(
      '',
    );
    expect(spendState(dir)).toMatchObject({
      entries: [],
      ledgers: [{ ledger: { totals: { tokens: 900 } } }],
    });
    const warning = JSON.parse(await afterTool(dir));
    expect(warning.hookSpecificOutput.additionalContext).toContain('you have used 900 of 1,000 tokens');
  });

  it('waits for the reply that asked for the tool call when the CLI writes it after calling the hook', async () => {
    const dir = project('spend:\n  session:\n    maxTokens: 1000\n');
    const transcript = join(dir, 'transcript.jsonl');
    appendFileSync(transcript, reply('msg_1', 300, 1));
    const event = (id: string) =>
      JSON.stringify(
        claudeEvent(dir, 's1', 'PostToolUse', {
          tool_name: 'Write',
          tool_input: { file_path: `${id}.txt`, content: id },
          tool_response: 'written',
          tool_use_id: id,
        }),
      );
    // the reply asking for toolu_a and toolu_b (800 tokens) is written 50 ms after the hook is called
    const late = reply('msg_2', 800, 1).replace(
      '"content":[]',
      '"content":[{"type":"tool_use","id":"toolu_a"},{"type":"tool_use","id":"toolu_b"}]',
    );
    setTimeout(() => appendFileSync(transcript, late), 50);
    const stop = JSON.parse(
      await answerHookEvent('claude', event('toolu_a'), { env: {}, cwd: dir, now: () => T0 }),
    );
    expect(stop.stopReason).toContain('this session reached its budget (1,100 of 1,000 tokens)');
    // the second call of the same reply finds it already read: counted once, no wait
    await answerHookEvent('claude', event('toolu_b'), { env: {}, cwd: dir, now: () => T0 });
    expect(spendState(dir).ledgers[0]?.ledger.totals).toMatchObject({ replies: 2, tokens: 1100 });
    expect(hookLog(dir)).toEqual([]);
  });

  it("waits for a turn's last reply even when an earlier reply said the same text (a second turn's answer)", async () => {
    const dir = project('spend:\n  session:\n    maxTokens: 100000\n');
    const transcript = join(dir, 'transcript.jsonl');
    const said = (id: string) =>
      reply(id, 500, 1).replace('"content":[]', '"content":[{"type":"text","text":"Main thread done."}]');
    const stop = () =>
      answerHookEvent(
        'claude',
        JSON.stringify(claudeEvent(dir, 's1', 'Stop', { last_assistant_message: 'Main thread done.' })),
        { env: {}, cwd: dir, now: () => T0 },
      );
    appendFileSync(transcript, said('msg_1'));
    await stop();
    // the second turn (a background subagent's notification, say) ends with the same words, which
    // Claude Code writes 50 ms after it calls the hook: the earlier reply is not this one. Between
    // the two, Claude Code 2.1.330 writes its Stop hooks' summary and the queued notification.
    appendFileSync(
      transcript,
      '{"type":"system","subtype":"stop_hook_summary"}\n{"type":"attachment","attachment":{"type":"queued_command"}}\n',
    );
    setTimeout(() => appendFileSync(transcript, said('msg_2')), 50);
    await stop();
    expect(spendState(dir).ledgers[0]?.ledger.totals).toMatchObject({ replies: 2, tokens: 1000 });
    expect(hookLog(dir)).toEqual([]);
  });

  it('a session the loop guard stops counts the reply of the call it stopped (written after the hook is called): its spend is what it spent', async () => {
    const dir = project('spend:\n  session:\n    maxTokens: 100000\n');
    const transcript = join(dir, 'transcript.jsonl');
    const asking = (n: number) =>
      reply(`msg_${n}`, 1000, 1).replace('"content":[]', `"content":[{"type":"tool_use","id":"toolu_${n}"}]`);
    const answer = (event: unknown) =>
      answerHookEvent('claude', JSON.stringify(event), { env: {}, cwd: dir, now: () => T0 });
    for (let n = 1; n <= 3; n++) {
      appendFileSync(transcript, asking(n));
      const { pre, post } = claudeFailingCall(dir, 's1', n);
      await answer(pre);
      await answer(post);
    }
    // the fourth repeat is denied before it runs, and the session ends: no later event counts its reply
    setTimeout(() => appendFileSync(transcript, asking(4)), 50);
    const stop = JSON.parse(await answer(claudeFailingCall(dir, 's1', 4).pre));
    expect(stop).toMatchObject({
      continue: false,
      stopReason: expect.stringContaining('Stopped (same_error)'),
    });
    const { ledgers, entries } = spendState(dir);
    expect(ledgers[0]?.ledger.totals).toMatchObject({ replies: 4, tokens: 4000 });
    expect(entries).toEqual([]);
    expect(hookLog(dir)).toEqual([]);
  });

  it('a session switched off (hook_sessions.enabled = 0) is neither counted nor warned nor stopped on spend', async () => {
    const dir = project('spend:\n  session:\n    maxTokens: 1000\n');
    const transcript = join(dir, 'transcript.jsonl');
    appendFileSync(transcript, reply('msg_1', 500));
    expect(await afterTool(dir)).toBe('');
    const database = openLoopGuardDatabase(join(dir, '.loopguard', 'state.db'));
    database.db.prepare("UPDATE hook_sessions SET enabled = 0 WHERE session_id = 's1'").run();
    database.close();
    appendFileSync(transcript, reply('msg_2', 400) + reply('msg_3', 600));
    expect(await afterTool(dir)).toBe('');
    expect(await afterTool(dir)).toBe('');
    const { ledgers, entries } = spendState(dir);
    expect(entries).toEqual([]);
    expect(ledgers[0]?.ledger.totals).toMatchObject({ replies: 1, tokens: 500 });
  });

  it('a dollar budget it cannot price says so at the first unpriced reply, once, in the entries too', async () => {
    const dir = project('spend:\n  session:\n    maxCostUsd: 0.05\n');
    const transcript = join(dir, 'transcript.jsonl');
    appendFileSync(transcript, reply('a', 100, 1, 'in-house-model'));
    const warning = JSON.parse(await afterTool(dir));
    expect(warning.hookSpecificOutput.additionalContext).toBe(
      'loopguard: this session cannot be held to its budget of $0.05: the cost of 100 tokens is unknown' +
        ' (no price for in-house-model), so they are not in the dollars it counts ($0.00 so far).' +
        ' loopguard goes on counting the dollars it can price (spend.onUnknownPrice: warn).' +
        ' Give the model a price in spend.prices to count it.',
    );
    appendFileSync(transcript, reply('b', 113_200, 1, 'in-house-model'));
    expect(await afterTool(dir)).toBe(''); // told once
    expect(spendState(dir).entries).toMatchObject([
      {
        topic: 'spend_warning',
        metadata: { scope: 'session', reason: 'unknown_price', spent: { unpricedTokens: 100 } },
      },
    ]);
  });

  it('onUnknownPrice: stop stops the session at the first reply it cannot price', async () => {
    const dir = project('spend:\n  session:\n    maxCostUsd: 0.05\n  onUnknownPrice: stop\n');
    appendFileSync(join(dir, 'transcript.jsonl'), reply('a', 100, 1, 'in-house-model'));
    const stop = JSON.parse(await afterTool(dir));
    expect(stop).toMatchObject({
      continue: false,
      stopReason: expect.stringContaining('loopguard stopped it (spend.onUnknownPrice: stop)'),
    });
    expect(spendState(dir).entries).toMatchObject([
      { topic: 'spend_stop', metadata: { reason: 'unknown_price' } },
    ]);
  });

  it('a token budget still prices what it can: the ledger and the entries carry dollars', async () => {
    const dir = project('spend:\n  session:\n    maxTokens: 1000000\n');
    // six replies of 150,000 input tokens on claude-sonnet-4-5: $0.45 each
    for (const id of ['a', 'b', 'c', 'd', 'e', 'f'])
      appendFileSync(join(dir, 'transcript.jsonl'), reply(id, 150_000, 1));
    const warning = JSON.parse(await afterTool(dir));
    expect(warning.hookSpecificOutput.additionalContext).toContain(
      'you have used 900,000 of 1,000,000 tokens',
    );
    const { ledgers, entries } = spendState(dir);
    expect(ledgers[0]?.ledger.totals).toMatchObject({ costUsd: 2.7, unpricedTokens: 0 });
    expect(entries[0]?.metadata).toMatchObject({ spent: { costUsd: 2.7, unpricedTokens: 0 } });
  });

  it('on the fast path (the MCP server) too: the first unpriced reply is told to the agent', async () => {
    const dir = project('spend:\n  session:\n    maxCostUsd: 0.05\n');
    // the server reads only the transcript where Claude Code keeps the session's
    const transcript = trustedTranscript(dir);
    appendFileSync(transcript.path, reply('a', 100, 1, 'in-house-model'));
    const lines: string[] = [];
    const server = new McpHookServer({
      write: (line) => lines.push(line),
      projectDir: dir,
      env: transcript.env,
    });
    const event = claudeEvent(dir, 's1', 'PostToolUse', {
      tool_name: 'Bash',
      tool_input: { command: 'ls' },
      tool_response: { stdout: 'a', stderr: '' },
      transcript_path: transcript.path,
    });
    server.receive(mcpHookCall(event));
    await server.idle();
    const answer = JSON.parse(JSON.parse(lines[0] ?? '{}').result.content[0].text);
    expect(answer.hookSpecificOutput.additionalContext).toContain(
      'this session cannot be held to its budget of $0.05: the cost of 100 tokens is unknown',
    );
    expect(spendState(dir).entries).toMatchObject([
      { topic: 'spend_warning', metadata: { reason: 'unknown_price' } },
    ]);
  });

  it('a sparse hole in the transcript does not blind it: the replies after the hole are counted at once', async () => {
    const dir = project('spend:\n  session:\n    maxCostUsd: 4\n');
    const transcript = join(dir, 'transcript.jsonl');
    appendFileSync(transcript, reply('before', 1000, 1));
    expect(await afterTool(dir)).toBe('');
    execFileSync('truncate', ['-s', '+100G', transcript]);
    // eleven $0.45 replies after the hole
    for (let i = 0; i < 11; i++) appendFileSync(transcript, reply(`after${i}`, 150_000, 1));
    const stop = JSON.parse(await afterTool(dir));
    expect(stop.stopReason).toContain('this session reached its budget ($4.95 of $4.00)');
    expect(spendState(dir).ledgers[0]?.ledger.totals).toMatchObject({ replies: 12 });
  });

  it('is off without a spend section: nothing is read or written', async () => {
    const dir = project('hook:\n  enabled: true\n');
    appendFileSync(join(dir, 'transcript.jsonl'), reply('a', 10_000_000));
    expect(await afterTool(dir)).toBe('');
    expect(spendState(dir).ledgers).toEqual([]);
  });

  it('a transcript that cannot be read fails open with one log line; the loop guard goes on', async () => {
    const dir = project('spend:\n  session:\n    maxTokens: 10\n');
    const transcript = join(dir, 'transcript.jsonl');
    appendFileSync(transcript, reply('a', 100));
    chmodSync(transcript, 0o000);
    const unreadable = process.getuid?.() === 0 ? join(dir, 'missing.jsonl') : transcript;
    const event = {
      ...claudeEvent(dir, 's1', 'PostToolUse', {
        tool_name: 'Bash',
        tool_input: { command: 'ls' },
        tool_response: 'x',
      }),
      transcript_path: unreadable,
    };
    expect(await answerHookEvent('claude', JSON.stringify(event), { env: {}, cwd: dir, now: () => T0 })).toBe(
      '',
    );
    expect(hookLog(dir)).toHaveLength(1);
    expect(hookLog(dir)[0]).toMatch(/claude PostToolUse session=s1: failed open: ENOENT|EACCES/);
    expect(spendState(dir).ledgers).toEqual([]);
  });

  it('a FIFO as the transcript is refused at once (one log line), not waited on', async () => {
    const dir = project('spend:\n  session:\n    maxTokens: 10\n');
    const fifo = join(dir, 'fifo.jsonl');
    execFileSync('mkfifo', [fifo]);
    const event = {
      ...claudeEvent(dir, 's1', 'Stop', { last_assistant_message: 'done' }),
      transcript_path: fifo,
    };
    expect(await answerHookEvent('claude', JSON.stringify(event), { env: {}, cwd: dir, now: () => T0 })).toBe(
      '',
    );
    expect(hookLog(dir)[0]).toContain('is not a regular file');
  });

  it('the spend section is validated: a bad value is one log line naming the key, and the call is silent', async () => {
    const dir = project('spend:\n  session:\n    maxCostUsd: -3\n');
    await expect(readHookConfig(dir)).rejects.toThrow('spend: "session.maxCostUsd"');
    expect(await afterTool(dir)).toBe('');
    expect(hookLog(dir)[0]).toContain('session.maxCostUsd');
  });
});

describe('reading a transcript', () => {
  it('reads whole lines only, skips what is not JSON or not a reply, and restarts a shorter file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'loopguard-transcript-'));
    const path = join(dir, 't.jsonl');
    const cut = reply('b', 7, 1);
    writeFileSync(
      path,
      `not json "assistant" "usage"\n${JSON.stringify({ type: 'user', message: { usage: {} } })}\n${reply('a', 5, 1)}${cut.slice(0, 20)}`,
    );
    const first = readTranscriptUsage(path, 0, 'claude');
    expect(first.records.map((r) => r.replyId)).toEqual(['a']);
    appendFileSync(path, cut.slice(20));
    const second = readTranscriptUsage(path, first.offset, 'claude');
    expect(second.records.map((r) => [r.replyId, r.inputTokens])).toEqual([['b', 7]]);
    writeFileSync(path, reply('c', 1, 1));
    expect(readTranscriptUsage(path, second.offset, 'claude').records.map((r) => r.replyId)).toEqual(['c']);
  });

  it('reads at most maxBytes a call; a line longer than that is skipped', () => {
    const dir = mkdtempSync(join(tmpdir(), 'loopguard-transcript-'));
    const path = join(dir, 't.jsonl');
    writeFileSync(path, `${'x'.repeat(100)}\n${reply('a', 5, 1)}`);
    const first = readTranscriptUsage(path, 0, 'claude', 64);
    expect(first).toEqual({ records: [], offset: 64 });
    const rest = readTranscriptUsage(
      path,
      readTranscriptUsage(path, first.offset, 'claude', 64).offset,
      'claude',
      1 << 20,
    );
    expect(rest.records.map((r) => r.replyId)).toEqual(['a']);
  });

  it('takes NUL bytes as line ends: a reply right after a hole is read, and a hole larger than a read is skipped', () => {
    const dir = mkdtempSync(join(tmpdir(), 'loopguard-transcript-'));
    const path = join(dir, 't.jsonl');
    // a small hole inside one read, then a larger one than the read, each followed by a reply
    writeFileSync(path, reply('a', 1, 1));
    execFileSync('truncate', ['-s', '+1000', path]);
    appendFileSync(path, reply('b', 2, 1));
    execFileSync('truncate', ['-s', '+5000000', path]);
    appendFileSync(path, reply('c', 3, 1));
    const read = readTranscriptUsage(path, 0, 'claude', 4096);
    expect(read.records.map((r) => r.replyId)).toEqual(['a', 'b', 'c']);
    expect(read.offset).toBe(statSync(path).size);
  });

  it("reads Gemini CLI's chat: its model records' tokens, each copy of a reply under the reply's id", () => {
    const dir = mkdtempSync(join(tmpdir(), 'loopguard-transcript-'));
    const path = join(dir, 'session.jsonl');
    const model = (extra: Record<string, unknown>) =>
      JSON.stringify({
        id: 'r1',
        type: 'gemini',
        model: 'gemini-2.5-flash',
        timestamp: '2026-11-28T10:00:00.000Z',
        tokens: { input: 100, output: 7, cached: 40, thoughts: 3, tool: 0, total: 110 },
        ...extra,
      });
    writeFileSync(
      path,
      [
        JSON.stringify({ sessionId: 's', projectHash: 'h', startTime: '2026-11-28T10:00:00.000Z' }),
        JSON.stringify({ id: 'u1', type: 'user', content: [{ text: '"gemini" "tokens"' }] }),
        model({}),
        model({ toolCalls: [{ name: 'write_file' }] }),
        model({ id: 'r2', tokens: { input: -5, output: 'many' } }),
        model({ id: 'r3', tokens: undefined }),
        '',
      ].join('\n'),
    );
    const { records } = readTranscriptUsage(path, 0, 'gemini');
    expect(records).toEqual([
      {
        replyId: 'r1',
        model: 'gemini-2.5-flash',
        at: T0,
        inputTokens: 60,
        cacheReadTokens: 40,
        outputTokens: 10,
        cacheCreationTokens: 0,
      },
      {
        replyId: 'r1',
        model: 'gemini-2.5-flash',
        at: T0,
        inputTokens: 60,
        cacheReadTokens: 40,
        outputTokens: 10,
        cacheCreationTokens: 0,
      },
      {
        replyId: 'r2',
        model: 'gemini-2.5-flash',
        at: T0,
        inputTokens: 0,
        cacheReadTokens: 0,
        outputTokens: 0,
        cacheCreationTokens: 0,
      },
    ]);
    // Claude Code's reader sees none of them
    expect(readTranscriptUsage(path, 0, 'claude').records).toEqual([]);
  });
});
