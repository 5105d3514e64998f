import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, symlinkSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runCli } from '../src/main.js';
import { ClaudeTranscriptParser } from '../src/scan/ClaudeTranscriptParser.js';
import { MAX_LINE_LENGTH, readLines } from '../src/scan/readLines.js';
import { scanFile } from '../src/scan/scanFile.js';
import type { ScanReport } from '../src/scan/scanReport.js';
import { EXIT_CODES } from '../src/terminal/exitCodes.js';
import { bufferedIo } from './helpers.js';

const tempDir = () => mkdtempSync(join(tmpdir(), 'loopguard-scan-bad-'));

async function scan(args: string[]) {
  const io = bufferedIo({ cwd: tempDir(), env: { NO_COLOR: '1' } });
  const code = await runCli(['scan', ...args, '--json'], io);
  return { code, report: io.out() === '' ? undefined : (JSON.parse(io.out()) as ScanReport), err: io.err() };
}

/** A step JSONL session that loops: the same failing command six times. */
const looping = `${Array.from({ length: 6 }, () =>
  [
    JSON.stringify({ type: 'action', tool: 'bash', input: 'make watch' }),
    JSON.stringify({ type: 'observation', tool: 'bash', output: 'error: not ready', error: true }),
  ].join('\n'),
).join('\n')}\n`;

/** Tool `args` nested `levels` deep (the detector takes 64). */
const nested = (levels: number): unknown => {
  let value: unknown = 'x';
  for (let n = 0; n < levels; n++) value = { a: value };
  return value;
};

/** An older Gemini CLI chat (`chats/session-*.json`) whose last reply calls a tool with `args`. */
const jsonChat = (args: unknown) =>
  JSON.stringify({
    sessionId: 'chat-1',
    projectHash: 'abc',
    startTime: '2026-11-25T10:00:00.000Z',
    messages: [
      { id: 'm1', type: 'user', content: 'go', timestamp: '2026-11-25T10:00:01.000Z' },
      {
        id: 'm2',
        type: 'gemini',
        content: '',
        toolCalls: [{ name: 'read_file', args, status: 'success', result: [] }],
      },
    ],
  });

/** Calls awaiting a result that a parser remembers (core's `CallNames`). */
const MAX_OPEN_CALLS = 256;

describe('loopguard scan: one bad file is one line saying what was wrong, and the rest of the report stands (issue 32, item 3; issue 31)', () => {
  it('skips a session whose end the detector refuses, and a chat read whole, each with one line naming why', async () => {
    const dir = tempDir();
    const chats = join(dir, 'tmp', 'project', 'chats');
    mkdirSync(chats, { recursive: true });
    writeFileSync(join(chats, 'session-1.json'), jsonChat(nested(65)));
    writeFileSync(
      join(chats, 'session-2.jsonl'),
      `${[
        { sessionId: 'chat-2', projectHash: 'abc', startTime: '2026-11-25T10:00:00.000Z' },
        { id: 'm1', type: 'user', content: 'go' },
        {
          id: 'm2',
          type: 'gemini',
          content: '',
          toolCalls: [{ name: 'read_file', args: nested(65), status: 'success' }],
        },
      ]
        .map((r) => JSON.stringify(r))
        .join('\n')}\n`,
    );
    writeFileSync(join(dir, 'good.jsonl'), looping);
    const { code, report, err } = await scan([dir]);
    expect(code).toBe(EXIT_CODES.ok);
    const lines = err.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/session-1\.json: session skipped: .*64/);
    expect(lines[1]).toMatch(/session-2\.jsonl: session skipped: .*64/);
    expect(report?.totals).toMatchObject({ files: 3, sessions: 1, sessionsWithLoops: 1, problems: 2 });
  });

  it('says what was wrong with the records it skipped, not "records the detector could not take"', async () => {
    const dir = tempDir();
    const bad = JSON.stringify({ type: 'action', tool: 'bash', input: nested(70) });
    writeFileSync(join(dir, 'steps.jsonl'), `${looping}${bad}\n${bad}\n`);
    const { code, report, err } = await scan([dir]);
    expect(code).toBe(EXIT_CODES.ok);
    expect(err.trim()).toMatch(/steps\.jsonl: 2 records skipped \(first: .*step\.input.*64.*\)$/);
    expect(report?.totals).toMatchObject({ sessions: 1, sessionsWithLoops: 1 });
  });

  it('never opens a FIFO named *.jsonl (it would wait forever): one line, and the scan goes on', async () => {
    const dir = tempDir();
    execFileSync('mkfifo', [join(dir, 'a-pipe.jsonl')]);
    writeFileSync(join(dir, 'b-good.jsonl'), looping);
    const { code, report, err } = await scan([dir]);
    expect(code).toBe(EXIT_CODES.ok);
    expect(err.trim()).toMatch(/a-pipe\.jsonl: not a regular file \(a FIFO\)$/);
    expect(report?.totals).toMatchObject({ files: 2, sessions: 1, problems: 1 });
    // named as the argument, too
    const alone = await scan([join(dir, 'a-pipe.jsonl')]);
    expect(alone.err).toMatch(/a-pipe\.jsonl: not a regular file \(a FIFO\)$/m);
  });

  it(`skips a line over ${MAX_LINE_LENGTH / 1024 / 1024} MiB unread, with one line, and reads the rest of the file`, async () => {
    const dir = tempDir();
    const file = join(dir, 'long.jsonl');
    const fd = openSync(file, 'w');
    writeSync(fd, looping.slice(0, looping.indexOf('\n') + 1));
    writeSync(fd, '{"type":"observation","output":"');
    const block = Buffer.alloc(1024 * 1024, 'x');
    for (let n = 0; n <= MAX_LINE_LENGTH / block.length; n++) writeSync(fd, block);
    writeSync(fd, '"}\n');
    writeSync(fd, looping);
    closeSync(fd);
    const scanned = await scanFile(file, {});
    expect(scanned.problem?.problem).toBe('1 line over 64 MiB skipped');
    expect(scanned.session?.loops.length).toBeGreaterThan(0);
  });

  it('reads lines as readline did, holding no line over its bound', async () => {
    const dir = tempDir();
    const read = async (text: string, max?: number) => {
      const file = join(dir, 'lines.jsonl');
      writeFileSync(file, text);
      const out: unknown[] = [];
      for await (const batch of readLines(file, max)) out.push(...batch);
      return out;
    };
    expect(await read('a\r\nbc\n\nd')).toEqual(['a', 'bc', '', 'd']);
    expect(await read('é\n')).toEqual(['é']);
    expect(await read('123456789\nok\n', 8)).toEqual([{ longLine: 9 }, 'ok']);
    expect(await read('ok\n123456789', 8)).toEqual(['ok', { longLine: 9 }]);
    expect(await read('')).toEqual([]);
  });

  it('skips a line over its bound that spans many reads, and goes on after it', async () => {
    const dir = tempDir();
    const file = join(dir, 'spans.jsonl');
    const long = 'x'.repeat(3 * 1024 * 1024 + 5);
    writeFileSync(file, `first\n${long}\nlast\n`);
    const out: unknown[] = [];
    for await (const batch of readLines(file, 1024 * 1024)) out.push(...batch);
    expect(out).toEqual(['first', { longLine: long.length }, 'last']);
  });

  it('gives the lines a plain split gives, whatever their lengths across reads (64 KiB each)', async () => {
    const dir = tempDir();
    const line = fc
      .tuple(fc.constantFrom('a', 'é', '😀', '{"x":1}', '\r'), fc.nat(150_000))
      .map(([piece, times]) => piece.repeat(Math.ceil(times / piece.length)));
    await fc.assert(
      fc.asyncProperty(fc.array(line, { maxLength: 8 }), fc.boolean(), async (lines, endNewline) => {
        const text = lines.join('\n') + (endNewline && lines.length > 0 ? '\n' : '');
        const file = join(dir, 'lines.jsonl');
        writeFileSync(file, text);
        const out: unknown[] = [];
        for await (const batch of readLines(file, 100_000)) out.push(...batch);
        const raw = text.split('\n');
        if (raw.at(-1) === '') raw.pop();
        expect(out).toEqual(
          raw.map((l) =>
            l.length > 100_000 ? { longLine: l.length } : l.endsWith('\r') ? l.slice(0, -1) : l,
          ),
        );
      }),
      { numRuns: 25 },
    );
  });

  it('reports a path that cannot be looked at by why, not as "no such file or folder", and goes on', async () => {
    const dir = tempDir();
    symlinkSync(join(dir, 'loop-b'), join(dir, 'loop-a'));
    symlinkSync(join(dir, 'loop-a'), join(dir, 'loop-b'));
    writeFileSync(join(dir, 'good.jsonl'), looping);
    const { code, report, err } = await scan([join(dir, 'loop-a'), join(dir, 'good.jsonl')]);
    expect(code).toBe(EXIT_CODES.ok);
    expect(err.trim()).toMatch(/loop-a: unreadable \(ELOOP\)$/);
    expect(report?.totals).toMatchObject({ sessions: 1, problems: 1 });
  });

  it(`keeps at most ${MAX_OPEN_CALLS} calls awaiting a result: a transcript whose calls never get one holds no more`, () => {
    const parser = new ClaudeTranscriptParser();
    const call = (n: number) => ({
      type: 'assistant',
      sessionId: 's',
      message: { content: [{ type: 'tool_use', id: `toolu_${n}`, name: `Tool${n}`, input: {} }] },
    });
    const result = (n: number) => ({
      type: 'user',
      sessionId: 's',
      message: { content: [{ type: 'tool_result', tool_use_id: `toolu_${n}`, content: 'ok' }] },
    });
    for (let n = 0; n < 10_000; n++) parser.push(call(n));
    // the last call's action comes with the next record (held until its answer: a refusal is only counted)
    expect(parser.push(result(10_000 - MAX_OPEN_CALLS)).steps).toEqual([
      { type: 'action', tool: 'Tool9999', input: {} },
      { type: 'observation', tool: `Tool${10_000 - MAX_OPEN_CALLS}`, output: 'ok' },
    ]);
    expect(parser.push(result(9999)).steps).toEqual([
      { type: 'observation', tool: 'Tool9999', output: 'ok' },
    ]);
    // the older calls are forgotten: their results name no tool
    expect(parser.push(result(10_000 - MAX_OPEN_CALLS - 1)).steps).toEqual([
      { type: 'observation', output: 'ok' },
    ]);
  });
});
