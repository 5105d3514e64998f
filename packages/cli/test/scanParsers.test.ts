import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Step, StepLoopDetector } from '@loopguard/core/steps';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { detectFormat } from '../src/scan/detectFormat.js';
import { progressLine } from '../src/scan/progressBar.js';
import { SessionScan } from '../src/scan/SessionScan.js';
import { scanFile } from '../src/scan/scanFile.js';
import { scanPaths } from '../src/scan/scanPaths.js';
import type { TranscriptParser } from '../src/scan/TranscriptParser.js';
import { SCAN_FIXTURES } from './agentTranscripts.js';

/** Reads `records` with the parser detected from the first; returns the steps and tokens. */
function read(records: Array<Record<string, unknown>>, file = 'x.jsonl') {
  const parser = detectFormat(records[0] as Record<string, unknown>, file) as TranscriptParser;
  const steps: unknown[] = [];
  const usages: unknown[] = [];
  let tokens = 0;
  for (const record of records) {
    if (parser.mayMatter?.(JSON.stringify(record)) === false) continue;
    const got = parser.push(record, JSON.stringify(record));
    steps.push(...got.steps);
    tokens += got.tokens;
    if (got.usage !== undefined) usages.push(got.usage);
  }
  const last = parser.end();
  steps.push(...last.steps);
  tokens += last.tokens;
  if (last.usage !== undefined) usages.push(last.usage);
  return { parser, steps, tokens, usages };
}

const claude = (type: string, message: unknown, extra: Record<string, unknown> = {}) => ({
  type,
  sessionId: 's1',
  cwd: '/repo',
  isSidechain: false,
  timestamp: '2026-11-25T10:00:00.000Z',
  message,
  ...extra,
});
const use = (id: string, command: string) => ({ type: 'tool_use', id, name: 'Bash', input: { command } });
const result = (id: string, content: unknown, error = false) => ({
  role: 'user',
  content: [{ type: 'tool_result', tool_use_id: id, content, is_error: error }],
});

describe('Claude Code transcript: what a step is', () => {
  it('takes tool calls, their results and the text; not thinking, API errors, meta or compaction summaries, attachments or api requests', () => {
    const { parser, steps } = read([
      { type: 'queue-operation', operation: 'enqueue', sessionId: 's1' },
      claude('user', { role: 'user', content: 'Fix it.' }),
      claude('attachment', undefined, { attachment: { type: 'environment' } }),
      { type: 'api-request', sessionId: 's1', params: { messages: [] } },
      claude('assistant', {
        id: 'm1',
        content: [{ type: 'thinking', thinking: 'hmm' }, { type: 'text', text: 'Looking.' }, use('t1', 'ls')],
      }),
      claude('user', result('t1', [{ type: 'text', text: 'a.txt' }, { type: 'image' }])),
      claude(
        'assistant',
        { id: 'm2', content: [{ type: 'text', text: 'API Error: 529' }] },
        { isApiErrorMessage: true },
      ),
      claude(
        'user',
        { role: 'user', content: 'This session is being continued… summary' },
        { isCompactSummary: true },
      ),
      claude('user', { role: 'user', content: '<command-name>/clear</command-name>' }, { isMeta: true }),
      claude('assistant', { id: 'm3', content: [use('t2', 'cat a.txt')] }),
      claude('user', result('t2', 'No such file', true)),
    ]);
    // 'Looking.' comes before a tool call in the same reply: narration no hook sees, so no step
    expect(steps).toEqual([
      { type: 'action', tool: 'Bash', input: { command: 'ls' } },
      { type: 'observation', tool: 'Bash', output: 'a.txt\n[image]' },
      { type: 'action', tool: 'Bash', input: { command: 'cat a.txt' } },
      { type: 'observation', tool: 'Bash', output: 'No such file', error: true },
    ]);
    expect(parser.meta).toMatchObject({
      sessionId: 's1',
      project: '/repo',
      startedAt: '2026-11-25T10:00:00.000Z',
    });
  });

  it('passes over a record whose first key names another type unread, once the session is named; not before, not an escaped type', () => {
    const parser = detectFormat(claude('user', 'Fix it.'), 'x.jsonl') as TranscriptParser;
    // an API request's body names the user and the assistant: found by a search of the whole line
    const request = JSON.stringify({
      type: 'api-request',
      sessionId: 's1',
      params: { messages: [{ role: 'user' }, { role: 'assistant' }] },
    });
    expect(parser.mayMatter?.(request)).toBe(true); // it could still name the session
    parser.push(claude('user', 'Fix it.'), '');
    expect(parser.mayMatter?.(request)).toBe(false);
    expect(parser.mayMatter?.(request.replace('api-request', 'api-\\u0072equest'))).toBe(true);
    for (const type of ['user', 'assistant', 'attachment'])
      expect(parser.mayMatter?.(request.replace('api-request', type))).toBe(true);
    expect(parser.mayMatter?.(JSON.stringify({ type: 'summary', summary: 'x' }))).toBe(false);
  });

  it("leaves a subagent's sidechain out of the main session, and reads a subagent's own file as its session", () => {
    const side = { isSidechain: true };
    const main = read([
      claude('assistant', { id: 'm1', content: [use('t1', 'ls')] }),
      claude('assistant', { id: 'm2', content: [use('t9', 'grep x')] }, side),
      claude('user', result('t9', 'x'), side),
      claude('user', result('t1', 'a.txt')),
    ]);
    expect(main.steps).toHaveLength(2);
    const subagent = read([
      claude('user', { role: 'user', content: 'Search for x' }, side),
      claude('assistant', { id: 'm2', content: [use('t9', 'grep x')] }, side),
      claude('user', result('t9', 'x'), side),
    ]);
    expect(subagent.steps).toHaveLength(2);
  });

  it('counts the usage of one reply once, though the reply is written as one record per block', () => {
    const usage = {
      input_tokens: 100,
      cache_creation_input_tokens: 10,
      cache_read_input_tokens: 1000,
      output_tokens: 5,
    };
    const { parser, tokens } = read([
      claude('assistant', { id: 'm1', content: [{ type: 'text', text: 'Two calls.' }], usage }),
      claude('assistant', { id: 'm1', content: [use('t1', 'ls')], usage }),
      claude('assistant', { id: 'm1', content: [use('t2', 'pwd')], usage }),
      claude('assistant', { id: 'm2', content: [{ type: 'text', text: 'Done.' }], usage }),
    ]);
    expect(tokens).toBe(2 * 1115);
    expect(parser.meta.hasUsage).toBe(true);
  });
});

describe('Codex rollout', () => {
  const item = (payload: Record<string, unknown>) => ({
    timestamp: '2026-11-25T10:00:00Z',
    type: 'response_item',
    payload,
  });
  it('reads calls and outputs (exec_command header left out, exit code → error), patches, older JSON outputs, token counts; not reasoning or user messages', () => {
    const { parser, steps, tokens } = read([
      { timestamp: '2026-11-25T10:00:00Z', type: 'session_meta', payload: { id: 'c1', cwd: '/repo' } },
      item({ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Fix it.' }] }),
      item({ type: 'reasoning', summary: [{ type: 'summary_text', text: 'thinking' }] }),
      item({ type: 'function_call', name: 'exec_command', arguments: '{"cmd":"cat a"}', call_id: 'c-1' }),
      item({
        type: 'function_call_output',
        call_id: 'c-1',
        output:
          'Chunk ID: ab12cd\nWall time: 0.01 seconds\nProcess exited with code 1\nOutput:\ncat: a: No such file\n',
      }),
      {
        timestamp: 't',
        type: 'event_msg',
        payload: { type: 'token_count', info: { total_token_usage: { total_tokens: 40 } } },
      },
      {
        timestamp: 't',
        type: 'event_msg',
        payload: { type: 'token_count', info: { total_token_usage: { total_tokens: 40 } } },
      },
      item({
        type: 'function_call',
        name: 'shell',
        arguments: '{"command":["bash","-lc","ls"]}',
        call_id: 'c-2',
      }),
      item({
        type: 'function_call_output',
        call_id: 'c-2',
        output: '{"output":"a.txt\\n","metadata":{"exit_code":0}}',
      }),
      item({ type: 'custom_tool_call', name: 'apply_patch', input: '*** Begin Patch', call_id: 'c-3' }),
      item({ type: 'custom_tool_call_output', call_id: 'c-3', output: 'Success.' }),
      {
        timestamp: 't',
        type: 'event_msg',
        payload: { type: 'token_count', info: { total_token_usage: { total_tokens: 100 } } },
      },
      item({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Done.' }] }),
      { timestamp: 't', type: 'event_msg', payload: { type: 'agent_message', message: 'Done.' } },
    ]);
    // Codex's command tools are `shell` in every door; the detector reads `{ cmd }` as the command
    expect(steps).toEqual([
      { type: 'action', tool: 'shell', input: { cmd: 'cat a' } },
      { type: 'observation', tool: 'shell', output: 'cat: a: No such file\n', error: true },
      { type: 'action', tool: 'shell', input: { command: ['bash', '-lc', 'ls'] } },
      { type: 'observation', tool: 'shell', output: 'a.txt\n' },
      { type: 'action', tool: 'apply_patch', input: '*** Begin Patch' },
      { type: 'observation', tool: 'apply_patch', output: 'Success.' },
      { type: 'message', text: 'Done.' },
    ]);
    expect(tokens).toBe(100);
    expect(parser.meta).toMatchObject({ sessionId: 'c1', project: '/repo', hasUsage: true });
  });

  it('answers a record from its type once the session has started, without a search of the line; escapes and other shapes are searched', () => {
    const parser = detectFormat(
      { timestamp: 't0', type: 'session_meta', payload: { id: 'c1' } },
      'x.jsonl',
    ) as TranscriptParser;
    const line = (record: Record<string, unknown>) =>
      JSON.stringify({ timestamp: 't', ordinal: 1, ...record });
    // a command's end as an event, naming every word the search looks for
    const output = line({
      type: 'event_msg',
      payload: {
        type: 'exec_command_end',
        parsed: { response_item: 1, token_count: 2, turn_context: 3 },
      },
    });
    expect(parser.mayMatter?.(output)).toBe(true); // the session's start is not known yet: searched
    parser.push({ timestamp: 't0', type: 'session_meta', payload: { id: 'c1' } }, '');
    expect(parser.mayMatter?.(output)).toBe(false);
    expect(parser.mayMatter?.(line({ type: 'event_msg', payload: { type: 'token_count', info: {} } }))).toBe(
      true,
    );
    for (const type of ['response_item', 'session_meta', 'turn_context'])
      expect(parser.mayMatter?.(line({ type, payload: { type: 'message' } }))).toBe(true);
    const world = line({ type: 'world_state', payload: { response_item: 1 } });
    expect(parser.mayMatter?.(world)).toBe(false);
    // written with an escape, or the payload before the type: the search answers
    expect(parser.mayMatter?.(world.replace('world_state', 'world\\u005fstate'))).toBe(true);
    expect(parser.mayMatter?.(output.replace('exec_command_end', 'exec\\u005fcommand_end'))).toBe(true);
    const payloadFirst = JSON.stringify({
      payload: { type: 'message' },
      timestamp: 't',
      type: 'response_item',
    });
    expect(parser.mayMatter?.(payloadFirst)).toBe(true);
    const eventPayloadLater = JSON.stringify({
      timestamp: 't',
      type: 'event_msg',
      payload: { info: {}, type: 'token_count' },
    });
    expect(parser.mayMatter?.(eventPayloadLater)).toBe(true);
  });
});

describe('Gemini CLI chat', () => {
  it("takes a reply in its last copy (its tool calls arrive in a later one), once; a failed call's error is the observation", () => {
    const reply = {
      id: 'g1',
      timestamp: '2026-11-25T10:00:01Z',
      type: 'gemini',
      content: '',
      tokens: { total: 15 },
    };
    const call = (status: string, response: Record<string, unknown>) => ({
      id: 'c1',
      name: 'read_file',
      args: { file_path: 'a.txt' },
      status,
      result: [{ functionResponse: { id: 'c1', name: 'read_file', response } }],
    });
    const { parser, steps, tokens } = read(
      [
        { sessionId: 'g-session', projectHash: 'abc', startTime: '2026-11-25T10:00:00Z', kind: 'main' },
        { id: 'u1', timestamp: 't', type: 'user', content: [{ text: 'Fix it.' }] },
        reply,
        { $set: { lastUpdated: 't' } },
        { ...reply, toolCalls: [call('error', { error: 'File not found: a.txt' })] },
        {
          id: 'u2',
          type: 'user',
          content: [{ functionResponse: { id: 'c1', response: { error: 'File not found' } } }],
        },
        { id: 'g2', type: 'gemini', content: 'It is missing.', tokens: { total: 20 } },
      ],
      '/home/me/.gemini/tmp/my-repo/chats/session-1.jsonl',
    );
    expect(steps).toEqual([
      { type: 'action', tool: 'read_file', input: { file_path: 'a.txt' } },
      { type: 'observation', tool: 'read_file', output: 'File not found: a.txt', error: true },
      { type: 'message', text: 'It is missing.' },
    ]);
    expect(tokens).toBe(35);
    expect(parser.meta).toMatchObject({
      sessionId: 'g-session',
      project: 'my-repo',
      startedAt: '2026-11-25T10:00:00Z',
    });
  });
});

describe('Gemini CLI chat: prices', () => {
  it("gives every reply's usage for its price, the last one's too (a text the session ends on)", () => {
    const reply = (id: string, extra: Record<string, unknown>) => ({
      id,
      timestamp: '2026-11-25T10:00:01Z',
      type: 'gemini',
      model: 'gemini-2.5-pro',
      tokens: { input: 10, output: 5, cached: 0, thoughts: 0, tool: 0, total: 15 },
      ...extra,
    });
    const call = {
      id: 'c1',
      name: 'run_shell_command',
      args: { command: 'ls' },
      status: 'success',
      result: [{ functionResponse: { id: 'c1', name: 'run_shell_command', response: { output: 'a' } } }],
    };
    const { tokens, usages } = read([
      { sessionId: 'g-session', projectHash: 'abc', startTime: '2026-11-25T10:00:00Z', kind: 'main' },
      reply('g1', { content: '', toolCalls: [call] }),
      reply('g2', { content: 'Done.' }),
    ]);
    expect(tokens).toBe(30);
    // the last reply's usage was dropped with its text: scan called its 15 tokens unpriced
    expect(usages).toHaveLength(2);
  });
});

describe('an older Gemini CLI chat (one JSON object)', () => {
  it('is read whole with the same rules; a walk finds it under chats/', async () => {
    const chats = join(mkdtempSync(join(tmpdir(), 'loopguard-scan-gemini-')), 'old-repo', 'chats');
    mkdirSync(chats, { recursive: true });
    const call = (n: number) => ({
      id: `g${n}`,
      type: 'gemini',
      content: '',
      tokens: { total: 10 },
      toolCalls: [
        {
          id: `c${n}`,
          name: 'run_shell_command',
          args: { command: 'npm test' },
          status: 'error',
          result: [{ functionResponse: { response: { error: 'Error: no config' } } }],
        },
      ],
    });
    const messages = [
      { id: 'u', type: 'user', content: 'Fix it.' },
      ...Array.from({ length: 8 }, (_, n) => call(n)),
    ];
    const file = join(chats, 'session-2025-01-01T10-00-abc.json');
    writeFileSync(
      file,
      JSON.stringify(
        { sessionId: 'old-1', projectHash: 'h', startTime: '2025-01-01T10:00:00Z', messages },
        null,
        2,
      ),
    );
    writeFileSync(join(chats, 'session-broken.json'), '{ "sessionId": ');
    writeFileSync(join(chats, 'notes.json'), '{}');
    const scanned = await scanPaths([join(chats, '..')], {});
    expect(scanned.files).toBe(2);
    expect(scanned.problems).toEqual([{ file: join(chats, 'session-broken.json'), problem: 'not JSON' }]);
    const [session] = scanned.sessions;
    expect(session).toMatchObject({
      format: 'gemini-chat',
      sessionId: 'old-1',
      project: 'old-repo',
      steps: 16,
      tokens: 80,
    });
    expect(session?.loops.filter((loop) => loop.stopStep !== null)).toHaveLength(1);
  });
});

describe('detectFormat', () => {
  it.each([
    [{ sessionId: 's', projectHash: 'h' }, 'gemini-chat'],
    [{ type: 'session_meta', timestamp: 't', payload: {} }, 'codex-rollout'],
    [{ type: 'queue-operation', sessionId: 's' }, 'claude-transcript'],
    [{ type: 'summary', summary: 'x', leafUuid: 'u' }, 'claude-transcript'],
    [{ type: 'system', subtype: 'init', session_id: 's' }, 'claude-stream-json'],
    [{ type: 'thread.started', thread_id: 't' }, 'codex-exec-json'],
    [{ type: 'init', session_id: 's', model: 'g' }, 'gemini-stream-json'],
    [{ type: 'action', tool: 'bash', input: 'ls' }, 'steps-jsonl'],
  ])('%j is %s', (record, format) => {
    expect(detectFormat(record, 'x.jsonl')?.format).toBe(format);
  });

  it('knows no other format', () => {
    expect(detectFormat({ kind: 'x' }, 'x.jsonl')).toBeUndefined();
    expect(detectFormat({ type: 'something' }, 'x.jsonl')).toBeUndefined();
  });

  it("reads Codex's `exec --json` and Gemini CLI's `stream-json` with core's parsers", () => {
    const codex = read([
      { type: 'thread.started', thread_id: 'th-1' },
      {
        type: 'item.completed',
        item: { id: 'i', type: 'command_execution', command: 'ls', aggregated_output: 'a', exit_code: 0 },
      },
      { type: 'turn.completed', usage: { input_tokens: 10, output_tokens: 2 } },
    ]);
    expect(codex.steps).toHaveLength(2);
    expect(codex.tokens).toBe(12);
    expect(codex.parser.meta.sessionId).toBe('th-1');
    const gemini = read([
      { type: 'init', session_id: 'g-1', timestamp: 't' },
      { type: 'tool_use', tool_name: 'ls', tool_id: 'x', parameters: {} },
      { type: 'tool_result', tool_id: 'x', status: 'success', output: 'a' },
    ]);
    expect(gemini.steps).toHaveLength(2);
    expect(gemini.parser.meta.sessionId).toBe('g-1');
  });
});

describe('SessionScan: loops and their waste', () => {
  const fail = [
    { type: 'action', tool: 'bash', input: 'npm test' },
    { type: 'observation', tool: 'bash', output: 'Error: no config', error: true },
  ] as const;
  const work = (n: number): Step[] => [
    { type: 'action', tool: 'bash', input: `cat file${n}` },
    { type: 'observation', tool: 'bash', output: `content ${n}` },
  ];

  it('takes the options of a whole scan validated once: the same loops as options given raw; bad ones refused by name', async () => {
    const raw = { stopAfter: 3, exemptCommands: [/^ls /] };
    const once = SessionScan.detectorOptions(raw);
    for (const name of [
      'claude-2.1.330-looping.jsonl',
      'codex-0.169.0-looping.jsonl',
      'gemini-0.61.0-looping.jsonl',
    ]) {
      const file = fileURLToPath(new URL(name, SCAN_FIXTURES));
      const fromRaw = await scanFile(file, raw);
      expect(fromRaw.session?.loops.length).toBeGreaterThan(0);
      expect(await scanFile(file, once)).toEqual(fromRaw);
    }
    expect(() => SessionScan.detectorOptions({ stopAfter: -1 })).toThrow(/stopAfter/);
  });

  it('opens a new loop at the next nudge after the agent learned something; waste is counted per loop, with the tokens after the stop', () => {
    const scan = new SessionScan(new StepLoopDetector());
    for (let i = 0; i < 6; i++) scan.add({ steps: [...fail], tokens: 10 });
    scan.add({ steps: [...work(1), ...work(2)], tokens: 0 });
    for (let i = 0; i < 6; i++) scan.add({ steps: [...fail], tokens: 10 });
    const result = scan.finish();
    expect(result).toMatchObject({ steps: 28, toolCalls: 14, tokens: 120 });
    expect(result.loops).toHaveLength(2);
    const [first, second] = result.loops;
    expect(first?.ended).toBe('got_out');
    expect(second?.ended).toBe('session_end');
    for (const loop of [first, second]) {
      if (loop?.stopStep === null || loop === undefined) throw new Error('no stop');
      expect(loop.wastedToolCalls).toBe((loop.endStep - loop.stopStep) / 2);
      expect(loop.wastedTokens).toBe(loop.wastedToolCalls * 10);
    }
    expect(first?.endStep).toBeLessThan(12);
    expect(second?.nudgeStep).toBeGreaterThan(16);
  });
});

describe('scanFile on transcripts cut anywhere (a session still being written)', () => {
  const fixtures = fileURLToPath(SCAN_FIXTURES);
  it('never throws; it reads a session (at most as many steps as the whole file) or names one problem', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'loopguard-scan-cut-'));
    const names = [
      'claude-2.1.330-looping.jsonl',
      'codex-0.169.0-looping.jsonl',
      'gemini-0.61.0-looping.jsonl',
    ];
    const whole = new Map<string, { text: string; steps: number }>();
    for (const name of names) {
      const text = readFileSync(join(fixtures, name), 'utf8');
      whole.set(name, { text, steps: (await scanFile(join(fixtures, name), {})).session?.steps ?? 0 });
    }
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...names),
        fc.double({ min: 0, max: 1, noNaN: true }),
        async (name, share) => {
          const { text, steps } = whole.get(name) as { text: string; steps: number };
          const file = join(dir, name);
          writeFileSync(file, text.slice(0, Math.floor(text.length * share)));
          const scanned = await scanFile(file, {});
          expect(scanned.session !== undefined || scanned.problem !== undefined).toBe(true);
          expect(scanned.session?.steps ?? 0).toBeLessThanOrEqual(steps);
          if (scanned.problem !== undefined) expect(scanned.problem.problem).not.toContain('\n');
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('progressLine', () => {
  it('draws the share of files read and ends the line when all are', () => {
    expect(progressLine(0, 40)).toBe(`\r[${'.'.repeat(30)}] 0/40 files`);
    expect(progressLine(20, 40)).toBe(`\r[${'#'.repeat(15)}${'.'.repeat(15)}] 20/40 files`);
    expect(progressLine(40, 40)).toBe(`\r[${'#'.repeat(30)}] 40/40 files\n`);
  });
});
