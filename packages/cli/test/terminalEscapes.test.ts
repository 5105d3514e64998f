import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openLoopGuardDatabase, SqliteRunStore } from '@loopguard/sqlite';
import { describe, expect, it } from 'vitest';
import { runCli } from '../src/main.js';
import { bufferedIo } from './helpers.js';
import { tempProject } from './hookHelpers.js';

/** A C0 or C1 control character, DEL: what a terminal's escape sequences are made of. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what it looks for
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

/** Sequences a tool's output or the model's command can carry: the window's title, the clipboard (OSC 52), a cleared screen, hidden text. */
const TITLE = '\u001b]0;loopguard: all clear\u0007';
const CLIPBOARD = '\u001b]52;c;cm0gLXJmIH4K\u0007';
const CLEAR = '\u001b[2J\u001b[H';
const HIDDEN = '\u001b[8mhidden\u001b[0m\u009b2J';

/** A Claude Code transcript in which the same failing command runs eight times, every field the model or a tool writes carrying escapes. */
function transcript(): string {
  const records: unknown[] = [];
  let time = Date.parse('2026-11-20T10:00:00Z');
  const record = (type: 'user' | 'assistant', message: Record<string, unknown>) => {
    time += 5_000;
    const at = new Date(time).toISOString();
    records.push({
      type,
      message,
      sessionId: 's-esc',
      cwd: `/home/dev/${TITLE}shop`,
      isSidechain: false,
      timestamp: at,
    });
  };
  record('user', { role: 'user', content: 'Make the tests pass.' });
  for (let i = 0; i < 8; i++) {
    const command = `npm test ${CLEAR}`;
    const output = `Error ${CLIPBOARD} ${HIDDEN}`;
    record('assistant', {
      id: `msg_${i}`,
      role: 'assistant',
      content: [{ type: 'tool_use', id: `toolu_${i}`, name: 'Bash', input: { command } }],
      usage: { input_tokens: 2_000, output_tokens: 60 },
    });
    record('user', {
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: `toolu_${i}`, content: output, is_error: true }],
    });
  }
  return `${records.map((r) => JSON.stringify(r)).join('\n')}\n`;
}

describe('no door sends a transcript’s escape sequences to the user’s terminal (trust41)', () => {
  it('scan prints the command, the result and the project with their control characters as U+FFFD', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'loopguard-escapes-'));
    writeFileSync(join(dir, 's-esc.jsonl'), transcript());
    const io = bufferedIo({ cwd: dir, env: { NO_COLOR: '1' } });
    expect(await runCli(['scan', dir], io)).toBe(0);
    expect(io.out()).toContain('npm test \uFFFD[2J');
    expect(io.out()).toContain('/home/dev/\uFFFD]0;');
    expect(io.out()).not.toMatch(CONTROL);
  });

  it('scan names a file it skips with the control characters of its name as U+FFFD', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'loopguard-escapes-'));
    mkdirSync(join(dir, 'p'));
    writeFileSync(join(dir, 'p', `x${TITLE}.jsonl`), 'not json\n');
    const io = bufferedIo({ cwd: dir, env: { NO_COLOR: '1' } });
    await runCli(['scan', dir], io);
    expect(io.err()).toContain('x\uFFFD]0;loopguard: all clear\uFFFD.jsonl');
    expect(io.err()).not.toMatch(CONTROL);
  });

  it("runs prints a run's reason, which quotes the agent's question, with its control characters as U+FFFD", async () => {
    const dir = tempProject();
    mkdirSync(join(dir, '.loopguard'), { mode: 0o700 });
    const database = openLoopGuardDatabase(join(dir, '.loopguard', 'state.db'));
    const runs = new SqliteRunStore({ db: database.db });
    runs.createRun({ id: 'r1', command: ['agent'], options: {}, cwd: dir });
    runs.updateRun('r1', { status: 'paused', reason: `the agent asked: may I? ${TITLE}${CLEAR}` });
    database.close();
    const io = bufferedIo({ cwd: dir, env: { NO_COLOR: '1' } });
    expect(await runCli(['runs'], io)).toBe(0);
    expect(io.out()).toContain('the agent asked: may I? \uFFFD]0;');
    expect(io.out()).not.toMatch(CONTROL);
  });
});
