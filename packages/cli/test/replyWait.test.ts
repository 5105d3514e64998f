import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { claudeHook } from '../src/hook/claudeHook.js';
import { endsWithReadReply, LOOKBACK_BYTES, waitForReply } from '../src/hook/replyWait.js';

function transcript(text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'loopguard-wait-')), 'transcript.jsonl');
  writeFileSync(path, text);
  return path;
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

/** A Claude Code reply's record (one line) asking for the tool call `id`. */
const use = (id: string) =>
  `${JSON.stringify({ type: 'assistant', message: { id: `msg_${id}`, role: 'assistant', content: [{ type: 'tool_use', id }] } })}\n`;
/** A Claude Code reply's record (one line) saying `words`. */
const says = (words: string) =>
  `${JSON.stringify({ type: 'assistant', message: { id: 'msg_t', role: 'assistant', content: [{ type: 'text', text: words }] } })}\n`;
const bytes = (text: string) => Buffer.byteLength(text);

describe('waitForReply: the spend guard waits for the reply an event follows', () => {
  it('finds a marker already written after the offset, or read just before it (parallel tool calls)', async () => {
    const path = transcript(use('toolu_1') + use('toolu_2'));
    expect(await waitForReply(path, 0, '"toolu_1"', 0)).toBe(true);
    expect(await waitForReply(path, bytes(use('toolu_1')), '"toolu_2"', 0)).toBe(true);
    // the reply asked for both calls: the second call's event comes after the first read it
    const end = bytes(use('toolu_1') + use('toolu_2'));
    expect(await waitForReply(path, end, '"toolu_1"', 0)).toBe(true);
    expect(await waitForReply(path, end, '"toolu_3"', 0)).toBe(false);
  });

  it(`looks back ${LOOKBACK_BYTES} bytes before the offset, no further`, async () => {
    const path = transcript(`${use('toolu_1')}${'x'.repeat(LOOKBACK_BYTES)}\n`);
    expect(await waitForReply(path, LOOKBACK_BYTES, '"toolu_1"', 0)).toBe(true);
    expect(await waitForReply(path, LOOKBACK_BYTES + bytes(use('toolu_1')) + 1, '"toolu_1"', 0)).toBe(false);
  });

  it('waits for a marker written later, even one cut across two writes', async () => {
    const path = transcript('{"type":"user"}\n');
    const waiting = waitForReply(path, 0, '"toolu_9"', 10_000);
    await tick();
    const line = use('toolu_9');
    appendFileSync(path, line.slice(0, line.indexOf('too') + 3));
    await tick();
    appendFileSync(path, line.slice(line.indexOf('too') + 3));
    expect(await waiting).toBe(true);
  });

  it('gives up at its timeout when the marker never comes', async () => {
    expect(await waitForReply(transcript(use('toolu_1')), 0, '"toolu_2"', 30)).toBe(false);
  });

  it('looks again from the start of a transcript shorter than the offset (rewritten)', async () => {
    expect(await waitForReply(transcript(use('toolu_1')), 5000, '"toolu_1"', 0)).toBe(true);
  });

  it("the marker in a record that is no reply (a tool's result, a cut line) is not the reply (trust48)", async () => {
    const result = `${JSON.stringify({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', content: 'Done.' }] } })}\n`;
    expect(await waitForReply(transcript(result), 0, 'Done.', 30, 0)).toBe(false);
    expect(await waitForReply(transcript(says('Done.').slice(0, -2)), 0, 'Done.', 30, 0)).toBe(false);
    const error = `${JSON.stringify({ type: 'assistant', isApiErrorMessage: true, message: { id: 'e', content: [{ type: 'text', text: 'Done.' }] } })}\n`;
    expect(await waitForReply(transcript(error), 0, 'Done.', 30, 0)).toBe(false);
    // the reply's own line, after another record with the same words: found
    expect(await waitForReply(transcript(result + says('Done.')), 0, 'Done.', 30, 0)).toBe(true);
  });

  it('does not wait on a transcript that cannot be read: missing, a folder, a FIFO', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'loopguard-wait-'));
    const fifo = join(dir, 'fifo.jsonl');
    execFileSync('mkfifo', [fifo]);
    for (const path of [join(dir, 'missing.jsonl'), dir, fifo])
      expect(await waitForReply(path, 0, '"toolu_1"', 60_000)).toBe(false);
  });
});

describe("Claude Code's events name the reply they follow", () => {
  const base = { session_id: 's', cwd: '/p', transcript_path: '/p/t.jsonl' };
  const markerOf = (event: Record<string, unknown>) =>
    claudeHook.parse({ ...base, ...event }, {}, '/p').replyMarker;

  it('before and after a tool call: its tool_use_id, as the transcript writes it', () => {
    const call = { tool_name: 'Write', tool_input: {}, tool_use_id: 'toolu_01A' };
    expect(markerOf({ ...call, hook_event_name: 'PostToolUse', tool_response: 'ok' })).toBe('"toolu_01A"');
    expect(markerOf({ ...call, hook_event_name: 'PostToolUseFailure', error: 'no' })).toBe('"toolu_01A"');
    // before it: a stop there counts the reply that asked for the call (every door says the same dollars)
    expect(markerOf({ ...call, hook_event_name: 'PreToolUse' })).toBe('"toolu_01A"');
    const { tool_use_id: _, ...anonymous } = call;
    expect(markerOf({ ...anonymous, hook_event_name: 'PostToolUse', tool_response: 'ok' })).toBeUndefined();
  });

  it('at the end of a turn: the start of its last text, JSON-escaped, no surrogate pair cut', () => {
    expect(markerOf({ hook_event_name: 'Stop', last_assistant_message: 'Done "all"\n' })).toBe(
      'Done \\"all\\"\\n',
    );
    const long = `${'a'.repeat(199)}😀 and more`;
    expect(markerOf({ hook_event_name: 'Stop', last_assistant_message: long })).toBe('a'.repeat(199));
    expect(markerOf({ hook_event_name: 'Stop', last_assistant_message: '  ' })).toBeUndefined();
    expect(markerOf({ hook_event_name: 'Stop' })).toBeUndefined();
  });

  it("the turn's last reply is looked for only where nothing was read yet; a tool call's also before it", () => {
    const unread = (event: Record<string, unknown>) =>
      claudeHook.parse({ ...base, ...event }, {}, '/p').replyUnread;
    expect(unread({ hook_event_name: 'Stop', last_assistant_message: 'Done.' })).toBe(true);
    const call = { tool_name: 'Write', tool_input: {}, tool_use_id: 'toolu_01A', tool_response: 'ok' };
    expect(unread({ ...call, hook_event_name: 'PostToolUse' })).toBeUndefined();
  });

  it('with no look back, a marker only before the offset is not the reply waited for', async () => {
    const path = transcript(says('Done.'));
    expect(await waitForReply(path, bytes(says('Done.')), 'Done.', 0, 0)).toBe(false);
    const waiting = waitForReply(path, bytes(says('Done.')), 'Done.', 10_000, 0);
    await tick();
    appendFileSync(path, says('Done.'));
    expect(await waiting).toBe(true);
  });
});

describe("endsWithReadReply: the transcript ends with a turn's last reply, read", () => {
  const record = (id: string, content: unknown[], type = 'assistant') =>
    `${JSON.stringify({ type, message: { id, role: type, content } })}\n`;
  const text = (id: string, words: string) => record(id, [{ type: 'text', text: words }]);

  it('yes when the read ends the file with that reply, whichever of its records holds the text', async () => {
    const body =
      record('m0', [{ type: 'tool_use', id: 't' }]) + text('m1', 'Done.') + record('m1', [{ type: 'x' }]);
    const path = transcript(body);
    expect(await endsWithReadReply(path, Buffer.byteLength(body), 'Done.')).toBe(true);
  });

  it('no when anything is unread, when another record comes last, or the text is an earlier reply’s', async () => {
    const read = text('m1', 'Done.');
    const path = transcript(`${read}{"type":"system","subtype":"stop_hook_summary"}\n`);
    expect(await endsWithReadReply(path, Buffer.byteLength(read), 'Done.')).toBe(false);
    const after = `${read}{"type":"system","subtype":"stop_hook_summary"}\n`;
    expect(await endsWithReadReply(transcript(after), Buffer.byteLength(after), 'Done.')).toBe(false);
    const earlier = text('m1', 'Done.') + record('m2', [{ type: 'tool_use', id: 't' }]);
    expect(await endsWithReadReply(transcript(earlier), Buffer.byteLength(earlier), 'Done.')).toBe(false);
    const user = text('m1', 'Done.') + record('u', [{ type: 'text', text: 'Done.' }], 'user');
    expect(await endsWithReadReply(transcript(user), Buffer.byteLength(user), 'Done.')).toBe(false);
    const cut = text('m1', 'Done.').slice(0, -1);
    expect(await endsWithReadReply(transcript(cut), Buffer.byteLength(cut), 'Done.')).toBe(false);
    expect(await endsWithReadReply(transcript(''), 0, 'Done.')).toBe(false);
  });

  it('no for a transcript that cannot be read: missing, a FIFO', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'loopguard-wait-'));
    const fifo = join(dir, 'fifo.jsonl');
    execFileSync('mkfifo', [fifo]);
    expect(await endsWithReadReply(join(dir, 'missing.jsonl'), 10, 'Done.')).toBe(false);
    expect(await endsWithReadReply(fifo, 0, 'Done.')).toBe(false);
  });
});
