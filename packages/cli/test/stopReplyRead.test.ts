import { appendFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { answerHookEvent } from '../src/hook/runHook.js';
import { claudeEvent, hookLog, spendState } from './hookHelpers.js';

// Every wait the spend guard makes, seen (the real wait still runs): a Stop whose reply another
// event already counted must not wait for it.
const waits = vi.hoisted(() => [] as string[]);
vi.mock('../src/hook/replyWait.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../src/hook/replyWait.js')>();
  return {
    ...original,
    waitForReply: (...args: Parameters<typeof original.waitForReply>) => {
      waits.push(args[2]);
      return original.waitForReply(...args);
    },
  };
});

const T0 = Date.parse('2026-11-28T10:00:00Z');
const DONE = 'Main thread done.';

/** A project with a budget no reply reaches and an empty transcript. */
function project(): { dir: string; transcript: string } {
  const dir = mkdtempSync(join(tmpdir(), 'loopguard-stop-read-'));
  writeFileSync(join(dir, 'loopguard.config.yaml'), 'spend:\n  session:\n    maxTokens: 100000\n');
  const transcript = join(dir, 'transcript.jsonl');
  writeFileSync(transcript, '');
  return { dir, transcript };
}

/** One Claude Code reply record of 500 input tokens with `content`. */
function reply(id: string, content: unknown[]): string {
  const message = {
    id,
    model: 'claude-sonnet-4-5',
    role: 'assistant',
    usage: { input_tokens: 500 },
    content,
  };
  return `${JSON.stringify({ type: 'assistant', timestamp: new Date(T0).toISOString(), message })}\n`;
}

/** A turn's last reply, saying `DONE`. */
const done = (id: string) => reply(id, [{ type: 'text', text: DONE }]);

/** What Claude Code 2.1.330 writes after a turn's Stop hooks and before the next turn's reply (a background notification). */
const betweenTurns = [
  { type: 'system', subtype: 'stop_hook_summary' },
  { type: 'queue-operation', operation: 'enqueue' },
  { type: 'attachment', attachment: { type: 'queued_command' } },
]
  .map((record) => `${JSON.stringify(record)}\n`)
  .join('');

function answer(dir: string, event: unknown): Promise<string> {
  return answerHookEvent('claude', JSON.stringify(event), { env: {}, cwd: dir, now: () => T0 });
}

const stop = (dir: string) => answer(dir, claudeEvent(dir, 's1', 'Stop', { last_assistant_message: DONE }));

const replies = (dir: string) =>
  spendState(dir).ledgers.find((l) => l.scope === 'session:claude:s1')?.ledger.totals.replies;

beforeEach(() => {
  waits.length = 0;
});

describe('a Stop whose reply was already read does not wait for it, and it counts once', () => {
  it('loopguard installed twice: the second entry finds the reply the first counted', async () => {
    const { dir, transcript } = project();
    appendFileSync(transcript, done('msg_1'));
    await stop(dir);
    expect(waits).toEqual([DONE]);
    await stop(dir);
    expect(waits).toEqual([DONE]); // no second wait
    expect(replies(dir)).toBe(1);
    expect(hookLog(dir)).toEqual([]);
  });

  it("a background subagent's event read the session's transcript first", async () => {
    const { dir, transcript } = project();
    const subagents = join(dir, 'transcript', 'subagents');
    mkdirSync(subagents, { recursive: true });
    writeFileSync(join(subagents, 'agent-a1.jsonl'), reply('msg_s1', [{ type: 'tool_use', id: 'toolu_s1' }]));
    appendFileSync(transcript, done('msg_1'));
    await answer(
      dir,
      claudeEvent(dir, 's1', 'PostToolUse', {
        agent_id: 'a1',
        agent_type: 'general-purpose',
        tool_name: 'Read',
        tool_input: { file_path: 'a.txt' },
        tool_response: 'a',
        tool_use_id: 'toolu_s1',
      }),
    );
    expect(replies(dir)).toBe(2); // the subagent's reply and the main thread's
    waits.length = 0;
    await stop(dir);
    expect(waits).toEqual([]);
    expect(replies(dir)).toBe(2);
  });

  it("the reply with several records (thinking, then text) is the transcript's end: no wait", async () => {
    const { dir, transcript } = project();
    appendFileSync(transcript, reply('msg_1', [{ type: 'thinking', thinking: 'hm' }]) + done('msg_1'));
    await stop(dir);
    waits.length = 0;
    await stop(dir);
    expect(waits).toEqual([]);
    expect(replies(dir)).toBe(1);
  });
});

describe('a Stop waits for its reply when the transcript does not end with it', () => {
  it('the next turn ends with the same words, written 50 ms after the hook is called: counted', async () => {
    const { dir, transcript } = project();
    appendFileSync(transcript, done('msg_1'));
    await stop(dir);
    appendFileSync(transcript, betweenTurns);
    setTimeout(() => appendFileSync(transcript, done('msg_2')), 50);
    await stop(dir);
    expect(waits).toEqual([DONE, DONE]);
    expect(replies(dir)).toBe(2);
  });

  it('the same words read, then the next turn started (its records read too): waits', async () => {
    const { dir, transcript } = project();
    appendFileSync(transcript, done('msg_1'));
    await stop(dir);
    // a tool call of the next turn read everything so far
    appendFileSync(transcript, betweenTurns + reply('msg_2', [{ type: 'tool_use', id: 'toolu_2' }]));
    await answer(
      dir,
      claudeEvent(dir, 's1', 'PostToolUse', {
        tool_name: 'Read',
        tool_input: { file_path: 'a.txt' },
        tool_response: 'a',
        tool_use_id: 'toolu_2',
      }),
    );
    setTimeout(() => appendFileSync(transcript, `${JSON.stringify({ type: 'user' })}\n${done('msg_3')}`), 50);
    waits.length = 0;
    await stop(dir);
    expect(waits).toEqual([DONE]);
    expect(replies(dir)).toBe(3);
  });
});

describe("a Stop's wait is not ended by the reply's words in a record that is no reply (trust48)", () => {
  it("the last tool call's result says the turn's last words: the reply written 50 ms later is counted", async () => {
    const { dir, transcript } = project();
    appendFileSync(transcript, reply('msg_1', [{ type: 'tool_use', id: 'toolu_1' }]));
    await answer(
      dir,
      claudeEvent(dir, 's1', 'PostToolUse', {
        tool_name: 'Bash',
        tool_input: { command: `echo '${DONE}'` },
        tool_response: { stdout: DONE, stderr: '' },
        tool_use_id: 'toolu_1',
      }),
    );
    expect(replies(dir)).toBe(1);
    // Claude Code writes the call's result after its PostToolUse hooks: the model chose its text
    const result = { type: 'tool_result', tool_use_id: 'toolu_1', content: DONE };
    appendFileSync(
      transcript,
      `${JSON.stringify({ type: 'user', message: { role: 'user', content: [result] } })}\n`,
    );
    setTimeout(() => appendFileSync(transcript, done('msg_2')), 50);
    waits.length = 0;
    await stop(dir);
    expect(waits).toEqual([DONE]);
    expect(replies(dir)).toBe(2);
  });
});
