import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loopKindWords } from '@loopguard/core/internal';
import { describe, expect, it, vi } from 'vitest';
import { runCli } from '../src/main.js';
import { formatMoney } from '../src/scan/money.js';
import type { ScanReport } from '../src/scan/scanReport.js';
import { EXIT_CODES } from '../src/terminal/exitCodes.js';
import { SCAN_FIXTURES } from './agentTranscripts.js';
import { bufferedIo } from './helpers.js';

const fixtures = fileURLToPath(SCAN_FIXTURES);
const fixture = (name: string) => join(fixtures, name);
const looping = readdirSync(fixtures).filter((name) => name.endsWith('-looping.jsonl'));
const progressing = readdirSync(fixtures).filter((name) => name.endsWith('-progressing.jsonl'));
const tempDir = () => mkdtempSync(join(tmpdir(), 'loopguard-scan-'));

async function scan(
  args: string[],
  cwd = tempDir(),
  env: NodeJS.ProcessEnv = { NO_COLOR: '1', LOOPGUARD_SCAN_CACHE: 'off' },
) {
  const io = bufferedIo({ cwd, env });
  const code = await runCli(['scan', ...args], io);
  return { code, out: io.out(), err: io.err() };
}

async function scanJson(args: string[], cwd?: string): Promise<ScanReport> {
  const { code, out, err } = await scan([...args, '--json'], cwd);
  expect(code, err).toBe(EXIT_CODES.ok);
  return JSON.parse(out) as ScanReport;
}

/** A transcript of steps in loopguard's JSONL: `n` runs of the same failing command, then other work. */
function stepLines(failures: number, after: string[] = []): string {
  const lines: unknown[] = [];
  for (let i = 0; i < failures; i++) {
    lines.push({ type: 'action', tool: 'bash', input: 'make watch' });
    lines.push({ type: 'observation', tool: 'bash', output: 'error: target not ready', error: true });
  }
  for (const command of after) {
    lines.push({ type: 'action', tool: 'bash', input: command });
    lines.push({ type: 'observation', tool: 'bash', output: `ran ${command}` });
  }
  return `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`;
}

describe('loopguard scan on transcripts the pinned CLIs wrote (fixtures)', () => {
  it('has a looping and a progressing session of each CLI', () => {
    expect(looping.map((name) => name.split('-')[0]).sort()).toEqual(['claude', 'codex', 'gemini']);
    expect(progressing.map((name) => name.split('-')[0]).sort()).toEqual(['claude', 'codex', 'gemini']);
  });

  it.each(looping)('reports the loop of %s with its waste after the stop', async (name) => {
    const report = await scanJson([fixture(name)]);
    const [session] = report.sessions;
    expect(report.totals).toMatchObject({ files: 1, sessions: 1, sessionsWithLoops: 1, problems: 0 });
    expect(session?.agent).toBe(name.split('-')[0]);
    expect(session?.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(session?.toolCalls).toBeGreaterThanOrEqual(9);
    const stopped = session?.loops.filter((loop) => loop.stopStep !== null) ?? [];
    expect(stopped).toHaveLength(1);
    const [loop] = stopped;
    if (loop === undefined || loop.stopStep === null) throw new Error('no stopped loop');
    expect(loop.kind).toMatch(/^[a-z_]+$/);
    expect(loop.nudgeStep).toBeLessThan(loop.stopStep);
    expect(loop.endStep).toBeGreaterThan(loop.stopStep);
    expect(loop.endStep).toBeLessThan(session?.steps ?? 0);
    expect(loop.ended).toBe('session_end');
    // every call after the stop up to the loop's end is waste: the looping call pairs of steps
    expect(loop.wastedToolCalls).toBeGreaterThan(0);
    expect(loop.wastedToolCalls).toBe(Math.ceil((loop.endStep - loop.stopStep) / 2));
    expect(loop.wastedTokens).toBeGreaterThan(0);
    expect(loop.evidence).toContain('missing.txt');
    expect(report.totals.wastedToolCalls).toBe(loop.wastedToolCalls);
    expect(report.totals.wastedTokens).toBe(loop.wastedTokens);
  });

  it.each(progressing)('reports no loop in %s', async (name) => {
    const report = await scanJson([fixture(name)]);
    expect(report.sessions[0]?.loops).toEqual([]);
    expect(report.sessions[0]?.toolCalls).toBe(4);
    expect(report.totals).toMatchObject({ sessionsWithLoops: 0, wastedToolCalls: 0, wastedTokens: 0 });
  });

  it('fits a terminal of 80 columns: each loop in a few lines, nothing past the edge, nothing cut; a pipe still gets the table (qa54)', async () => {
    const io = bufferedIo({ cwd: tempDir(), env: { NO_COLOR: '1' }, isTTY: true, columns: 80 });
    expect(await runCli(['scan', fixtures, '--price', '3'], io), io.err()).toBe(EXIT_CODES.ok);
    const lines = io.out().split('\n');
    const report = await scanJson([fixtures, '--price', '3']);
    const looped = report.sessions.filter((session) => session.loops.length > 0);
    expect(looped.length).toBeGreaterThan(0);
    // the tables (the lines after the totals) stay within the width, and so do the sentences above
    // them, broken between words (sess70: the terminal cut `($0.00025)` as `($0.0` / `0025)`)
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(80);
    expect(io.out()).not.toContain(' | ');
    const piped = (await scan([fixtures, '--price', '3'])).out.split('\n');
    const totals = lines
      .slice(0, lines.indexOf(''))
      .join('\n')
      .replace(/\n {2}/g, ' ');
    expect(totals).toBe(piped.slice(0, piped.indexOf('')).join('\n'));
    expect(lines.slice(0, lines.indexOf('')).some((line) => line.startsWith('  '))).toBe(true);
    for (const session of looped) {
      const head = lines.find((line) => line.includes(session.sessionId));
      expect(head, session.sessionId).toMatch(new RegExp(`^${session.agent} +${session.sessionId}`));
      // then its kind, where it was stopped or nudged, and its evidence, indented
      const next = lines[lines.indexOf(head ?? '') + 2] ?? '';
      expect(next, session.sessionId).toMatch(/^ {2}\S/);
      expect(next).toContain(loopKindWords(session.loops[0]?.kind ?? '-'));
    }
    // piped (no width): the table, as scripts read it
    expect((await scan([fixtures, '--price', '3'])).out).toContain(' | ');
  });

  it('prints the --json shape of the issue', async () => {
    const report = await scanJson([fixtures]);
    expect(Object.keys(report).sort()).toEqual(['sessions', 'totals']);
    for (const key of [
      'files',
      'sessions',
      'sessionsWithLoops',
      'toolCalls',
      'wastedToolCalls',
      'wastedTokens',
    ])
      expect(report.totals).toHaveProperty(key);
    expect(report.totals).toMatchObject({ files: 6, sessions: 6, sessionsWithLoops: 3 });
    for (const session of report.sessions) {
      for (const key of ['file', 'agent', 'sessionId', 'steps', 'toolCalls', 'loops'])
        expect(session).toHaveProperty(key);
      for (const loop of session.loops) {
        for (const key of [
          'kind',
          'nudgeStep',
          'stopStep',
          'endStep',
          'wastedToolCalls',
          'wastedTokens',
          'evidence',
        ])
          expect(loop).toHaveProperty(key);
      }
    }
    // worst first
    const waste = report.sessions.map((s) => s.loops.reduce((sum, loop) => sum + loop.wastedToolCalls, 0));
    expect(waste).toEqual([...waste].sort((a, b) => b - a));
  });

  it('prints the terminal report: totals on top, the looping sessions worst first with their evidence', async () => {
    const { code, out } = await scan([fixtures]);
    expect(code).toBe(EXIT_CODES.ok);
    const lines = out.split('\n');
    expect(lines[0]).toBe('Scanned 6 files: 6 sessions, 41 tool calls ran.');
    expect(lines[1]).toMatch(
      /^3 sessions looped where loopguard would have stopped them: \d+ tool calls, [\d,]+ tokens spent after the stop\.$/,
    );
    const rows = lines.filter((line) => / \| (claude|codex|gemini) +\| /.test(line));
    expect(rows).toHaveLength(3);
    for (const row of rows) expect(row).toContain('missing.txt');
    expect(out).not.toContain('progressing');
  });

  it('prices each model from the pricing library; the scripted models have no price: unknown, never $0; --price prices every token', async () => {
    const claude = fixture(looping.find((name) => name.startsWith('claude')) as string);
    const codex = fixture(looping.find((name) => name.startsWith('codex')) as string);
    const priced = await scanJson([claude]);
    expect(priced.totals.unpricedTokens).toBe(0);
    expect(priced.totals.costUsd).toBeGreaterThan(0);
    expect(priced.totals.wastedCost).toBeGreaterThan(0);
    expect(priced.totals.wastedCost).toBeLessThan(priced.totals.costUsd as number);
    const unknown = await scanJson([codex]);
    expect(unknown.totals).toMatchObject({
      wastedCost: null,
      costUsd: 0,
      unpricedTokens: unknown.sessions[0]?.tokens,
    });
    expect((await scan([codex])).out).toMatch(
      /Priced per model: \$0\.00 in all; the cost of [\d,]+ tokens is unknown/,
    );
    // a price in the configuration prices the scripted model
    const dir = tempDir();
    writeFileSync(
      join(dir, 'loopguard.config.yaml'),
      'spend:\n  prices:\n    gpt-scripted: { input: 1000, output: 1000 }\n',
    );
    const configured = await scanJson([codex], dir);
    expect(configured.totals.unpricedTokens).toBe(0);
    expect(configured.totals.costUsd).toBeCloseTo(((unknown.sessions[0]?.tokens ?? 0) * 1000) / 1e6, 3);
    const flat = await scanJson([fixture(looping[0] as string), '--price', '10']);
    const tokens = flat.totals.wastedTokens ?? 0;
    expect(flat.totals.wastedCost).toBe((tokens * 10) / 1_000_000);
    expect(flat.sessions[0]?.loops[0]?.wastedCost).toBe(flat.totals.wastedCost);
    const { out } = await scan([fixture(looping[0] as string), '--price', '10']);
    expect(out).toContain(formatMoney((tokens * 10) / 1_000_000));
    const bad = await scan([fixtures, '--price', 'cheap']);
    expect(bad.code).toBe(EXIT_CODES.usage);
  });
});

describe("loopguard scan: a project's own prices are said (trust54)", () => {
  it('says which sessions were priced at a spend.prices, and a price below the pricing library', async () => {
    const claude = fixture(looping.find((name) => name.startsWith('claude')) as string);
    const dir = realpathSync(tempDir());
    const plain = await scan([claude], dir);
    expect(plain.out).not.toContain('spend.prices');
    writeFileSync(
      join(dir, 'loopguard.config.yaml'),
      'spend:\n  prices:\n    claude-opus-5-5: { input: 0, output: 0, cacheWrite: 0, cacheRead: 0 }\n',
    );
    const note = `Sessions of ${dir} priced at its spend.prices (from ${join(dir, 'loopguard.config.yaml')}), below the pricing library's: "claude-opus-5-5" input $0.00 (the library: $`;
    const { out } = await scan([claude], dir);
    expect(out).toContain(note);
    expect(out).toMatch(/Priced per model: \$0\.00 in all\.\n.*Sessions of /);
    const json = await scanJson([claude], dir);
    expect(json.totals.projectPrices).toEqual([expect.stringContaining(note.slice(0, -1))]);
    // a model the library does not price (the documented use): the prices are said, nothing below
    const codex = fixture(looping.find((name) => name.startsWith('codex')) as string);
    writeFileSync(
      join(dir, 'loopguard.config.yaml'),
      'spend:\n  prices:\n    gpt-scripted: { input: 1, output: 1 }\n',
    );
    expect((await scanJson([codex], dir)).totals.projectPrices).toEqual([
      `Sessions of ${dir} priced at its spend.prices (from ${join(dir, 'loopguard.config.yaml')})`,
    ]);
    expect((await scanJson([codex, '--price', '3'], dir)).totals.projectPrices).toBeUndefined();
  });
});

describe('loopguard scan: money', () => {
  it('never shows a row at $0.00 beside a total above it: below a cent, two significant digits', async () => {
    const { code, out } = await scan([fixtures, '--price', '10']);
    expect(code).toBe(EXIT_CODES.ok);
    const total = /\((\$[\d.]+)\) spent after the stop/.exec(out)?.[1];
    const rows = out.split('\n').filter((line) => / \| (claude|codex|gemini) +\| /.test(line));
    expect(total).toMatch(/^\$0\.00\d\d$/);
    expect(rows).toHaveLength(3);
    for (const row of rows) expect(row).toMatch(/tokens, \$0\.00?0?[1-9]\d? /);
    expect(out).not.toContain('$0.00 ');
  });

  it('formats money as cents from a cent up and two significant digits below', () => {
    expect(formatMoney(0)).toBe('$0.00');
    expect(formatMoney(4.1)).toBe('$4.10');
    expect(formatMoney(0.00421)).toBe('$0.0042');
    expect(formatMoney(0.009999)).toBe('$0.01');
    expect(formatMoney(0.0000012)).toBe('$0.0000012');
  });
});

describe('loopguard scan --budget', () => {
  it('shows what a budget per session would have saved: the dollars after the reply that reached it', async () => {
    const claude = fixture(looping.find((name) => name.startsWith('claude')) as string);
    const full = await scanJson([claude]);
    const cost = full.totals.costUsd as number;
    const half = await scanJson([claude, '--budget', (cost / 2).toFixed(4)]);
    expect(half.totals.budget).toMatchObject({ usd: Number((cost / 2).toFixed(4)), sessionsStopped: 1 });
    expect(half.totals.budget?.savedUsd).toBeGreaterThan(0);
    expect(half.totals.budget?.savedUsd).toBeLessThan(cost / 2 + 1e-9);
    expect(half.sessions[0]?.budgetSavedUsd).toBeCloseTo(half.totals.budget?.savedUsd as number, 4);
    const ample = await scanJson([claude, '--budget', String(Math.ceil(cost * 10 + 1))]);
    expect(ample.totals.budget).toMatchObject({ sessionsStopped: 0, savedUsd: 0 });
    const { out } = await scan([claude, '--budget', (cost / 2).toFixed(4)]);
    // money by the one rule: a budget under a cent is not shown as $0.00
    expect(out).toContain(
      `A budget of ${formatMoney(Number((cost / 2).toFixed(4)))} per session would have stopped 1 session and saved ${formatMoney(half.totals.budget?.savedUsd as number)}.`,
    );
    expect(out).not.toContain('$0.00 per session');
  });

  it('refuses a budget that is not a positive number, or one beside --price', async () => {
    expect((await scan([fixtures, '--budget', '0'])).code).toBe(EXIT_CODES.usage);
    expect((await scan([fixtures, '--budget', 'lots'])).code).toBe(EXIT_CODES.usage);
    const both = await scan([fixtures, '--budget', '5', '--price', '3']);
    expect(both.code).toBe(EXIT_CODES.usage);
    expect(both.err).toContain('--budget needs the per-model prices: give it without --price');
  });
});

describe('loopguard scan: steps, waste and settings', () => {
  it('reads loopguard step JSONL; waste stops where the agent got out of the loop', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'steps.jsonl'), stepLines(8, ['ls', 'cat README.md', 'git status']));
    const report = await scanJson([dir]);
    const [session] = report.sessions;
    // sessions60: named as `--agent-stream jsonl` names the format, never "steps"
    expect(session).toMatchObject({ agent: 'jsonl', steps: 22, toolCalls: 11, tokens: null });
    const table = (await scan([dir])).out;
    // agent, then the session (the file's name)
    expect(table).toMatch(/\| jsonl +\| steps +\|/);
    const [loop] = session?.loops ?? [];
    expect(loop).toMatchObject({ ended: 'got_out', wastedTokens: null });
    if (loop === undefined || loop.stopStep === null) throw new Error('no stopped loop');
    // the loop ends at the last failing call: the three calls after it are not waste
    expect(loop.endStep).toBe(15);
    expect(loop.wastedToolCalls).toBe((15 - loop.stopStep) / 2);
    expect(report.totals.wastedTokens).toBeNull();
  });

  it('lists the 25 worst sessions on the terminal and says how many more there are', async () => {
    const dir = tempDir();
    for (let i = 0; i < 30; i++) writeFileSync(join(dir, `s${i}.jsonl`), stepLines(4 + i));
    const { out } = await scan([dir]);
    expect(out.split('\n').filter((line) => / \| jsonl +\| /.test(line))).toHaveLength(25);
    expect(out).toContain('… and 5 more (all of them: --json or --html)');
    expect((await scanJson([dir])).sessions).toHaveLength(30);
  });

  it('names each session on the terminal by the id status takes: two loops of one agent on one day are told apart (qa41)', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'morning.jsonl'), stepLines(8));
    writeFileSync(join(dir, 'evening.jsonl'), stepLines(6));
    writeFileSync(join(dir, 'nudged.jsonl'), stepLines(3, ['ls']));
    const { out } = await scan([dir]);
    const header = out.split('\n').find((line) => line.startsWith('project'));
    expect(header).toMatch(/^project +\| date +\| agent +\| session +\| kind /);
    const rows = out.split('\n').filter((line) => / \| jsonl +\| /.test(line));
    expect(rows.map((row) => row.split(' | ')[3]?.trim())).toEqual(['morning', 'evening', 'nudged']);
  });

  it('reports a nudge that came with no stop', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'steps.jsonl'), stepLines(3, ['ls']));
    const report = await scanJson([dir]);
    expect(report.totals).toMatchObject({ sessionsWithLoops: 0, nudgesWithoutStop: 1, wastedToolCalls: 0 });
    expect(report.sessions[0]?.loops[0]).toMatchObject({
      stopStep: null,
      wastedToolCalls: 0,
      ended: 'got_out',
    });
    const { out } = await scan([dir]);
    expect(out).toContain('1 nudge came with no stop.');
    expect(out).toContain('Nudged, never stopped:');
  });

  it("honours the project's loopguard.config.yaml (the hooks' detector options)", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'steps.jsonl'), stepLines(8));
    expect((await scanJson([dir], dir)).totals.sessionsWithLoops).toBe(1);
    writeFileSync(join(dir, 'loopguard.config.yaml'), 'hook:\n  exemptCommands: ["^make watch$"]\n');
    expect((await scanJson([dir], dir)).totals).toMatchObject({ sessionsWithLoops: 0, nudgesWithoutStop: 0 });
    // a value the hooks refuse: they fail open there, and scan replays with the defaults, saying so in one line (sessions57)
    writeFileSync(join(dir, 'loopguard.config.yaml'), 'hook:\n  stopAfter: 0\n');
    const bad = await scan([dir], dir);
    expect(bad.code).toBe(EXIT_CODES.ok);
    expect(bad.err.trim().split('\n')).toHaveLength(1);
    expect(bad.err).toMatch(
      /^loopguard scan: config .*: the hooks fail open on it; sessions replayed with the default options\n$/,
    );
    expect((await scanJson([dir], dir)).totals.sessionsWithLoops).toBe(1);
  });

  it("reads `loopguard run`'s output logs of a stream-json agent", async () => {
    const dir = tempDir();
    const iteration = join(dir, '.loopguard', 'runs', 'r1', 'iterations', '1');
    mkdirSync(iteration, { recursive: true });
    const events = [
      'agent starting',
      JSON.stringify({ type: 'system', subtype: 'init', session_id: 's-1', cwd: '/repo' }),
    ];
    for (let i = 0; i < 8; i++) {
      events.push(
        JSON.stringify({
          type: 'assistant',
          session_id: 's-1',
          message: {
            id: `m${i}`,
            content: [{ type: 'tool_use', id: `t${i}`, name: 'Bash', input: { command: 'make watch' } }],
            usage: { input_tokens: 100, output_tokens: 10 },
          },
        }),
        JSON.stringify({
          type: 'user',
          session_id: 's-1',
          message: {
            content: [{ type: 'tool_result', tool_use_id: `t${i}`, content: 'not ready', is_error: true }],
          },
        }),
      );
    }
    writeFileSync(join(iteration, 'output.log'), `${events.join('\n')}\n`);
    writeFileSync(join(iteration, 'metrics.json'), '{}');
    // no path: the default places include <cwd>/.loopguard/runs (and an empty home: not this machine's own)
    const { code, out, err } = await scan(['--json'], dir, { HOME: tempDir() });
    expect(code, err).toBe(EXIT_CODES.ok);
    const report = JSON.parse(out) as ScanReport;
    expect(report.totals.files).toBe(1);
    expect(report.sessions[0]).toMatchObject({
      agent: 'claude',
      format: 'claude-stream-json',
      sessionId: 's-1',
    });
    expect(report.totals.sessionsWithLoops).toBe(1);
    expect(report.totals.wastedTokens).toBeGreaterThan(0);
  });

  it("counts a session once when `loopguard run` wrote its stream and the CLI its transcript: the transcript's (qa54)", async () => {
    const dir = tempDir();
    const home = tempDir();
    // the pinned Claude Code's transcript of a looping session, where Claude Code keeps it
    const transcript = fixture('claude-2.1.330-looping.jsonl');
    const alone = await scanJson([transcript]);
    const id = alone.sessions[0]?.sessionId ?? '';
    const projects = join(home, '.claude', 'projects', '-repo');
    mkdirSync(projects, { recursive: true });
    copyFileSync(transcript, join(projects, `${id}.jsonl`));
    // and the same session's stream-json, as `loopguard run --agent-stream claude` kept it
    const iteration = join(dir, '.loopguard', 'runs', 'r1', 'iterations', '1');
    mkdirSync(iteration, { recursive: true });
    const events = [JSON.stringify({ type: 'system', subtype: 'init', session_id: id, cwd: '/repo' })];
    for (let i = 0; i < 6; i++) {
      events.push(
        JSON.stringify({
          type: 'assistant',
          session_id: id,
          message: {
            id: `m${i}`,
            content: [{ type: 'tool_use', id: `t${i}`, name: 'Bash', input: { command: 'npm test' } }],
            usage: { input_tokens: 100, output_tokens: 10 },
          },
        }),
        JSON.stringify({
          type: 'user',
          session_id: id,
          message: {
            content: [{ type: 'tool_result', tool_use_id: `t${i}`, content: 'failed', is_error: true }],
          },
        }),
      );
    }
    writeFileSync(join(iteration, 'output.log'), `${events.join('\n')}\n`);
    const { code, out, err } = await scan(['--json', '--no-cache'], dir, { HOME: home, NO_COLOR: '1' });
    expect(code, err).toBe(EXIT_CODES.ok);
    const report = JSON.parse(out) as ScanReport;
    expect(report.totals.files).toBe(2);
    expect(report.sessions.map((s) => [s.sessionId, s.format])).toEqual([[id, 'claude-transcript']]);
    // the totals are the transcript's alone, as ccusage reads it
    expect(report.totals).toMatchObject({
      sessions: 1,
      toolCalls: alone.totals.toolCalls,
      wastedTokens: alone.totals.wastedTokens,
      costUsd: alone.totals.costUsd,
    });
  });

  // qa53: `loopguard run` without --agent-stream keeps the agent's text (or nothing): each such log
  // was a line on stderr (`empty`, `unknown format`) and "files skipped" in the totals
  it('reads the output log of an agent that printed text or nothing as no session, and says nothing of it', async () => {
    const dir = tempDir();
    const log = (iteration: number, text: string) => {
      const folder = join(dir, '.loopguard', 'runs', 'r1', 'iterations', String(iteration));
      mkdirSync(folder, { recursive: true });
      writeFileSync(join(folder, 'output.log'), text);
    };
    log(1, '');
    log(2, 'Reading the code...\nDone: fixed the parser.\n');
    const { code, out, err } = await scan([], dir, { HOME: tempDir(), NO_COLOR: '1' });
    expect(code, err).toBe(EXIT_CODES.ok);
    expect(err).toBe('');
    expect(out).not.toContain('skipped');
    expect(out).toContain('0 sessions');
  });
});

describe('loopguard scan: progress', () => {
  it('draws a progress bar on a terminal stderr while it reads many files, and none otherwise', async () => {
    const dir = tempDir();
    for (let i = 0; i < 20; i++) writeFileSync(join(dir, `s${i}.jsonl`), stepLines(1));
    const terminal = bufferedIo({ cwd: dir, stderrIsTTY: true });
    expect(await runCli(['scan', dir], terminal)).toBe(EXIT_CODES.ok);
    expect(terminal.err()).toContain('\r[##');
    expect(terminal.err().endsWith('] 20/20 files\n')).toBe(true);
    const piped = bufferedIo({ cwd: dir });
    expect(await runCli(['scan', dir], piped)).toBe(EXIT_CODES.ok);
    expect(piped.err()).toBe('');
  });
});

describe('loopguard scan: default places', () => {
  it("finds each CLI's transcripts under its home variable", async () => {
    const home = tempDir();
    const claude = join(home, 'claude-config', 'projects', '-repo');
    const codex = join(home, 'codex-home', 'sessions', '2026', '11', '25');
    const gemini = join(home, 'gemini-home', '.gemini', 'tmp', 'repo', 'chats');
    for (const dir of [claude, codex, gemini]) mkdirSync(dir, { recursive: true });
    copyFileSync(fixture('claude-2.1.330-looping.jsonl'), join(claude, 'session.jsonl'));
    copyFileSync(fixture('codex-0.169.0-looping.jsonl'), join(codex, 'rollout.jsonl'));
    copyFileSync(fixture('gemini-0.61.0-looping.jsonl'), join(gemini, 'session.jsonl'));
    const env = {
      HOME: join(home, 'nobody'),
      CLAUDE_CONFIG_DIR: join(home, 'claude-config'),
      CODEX_HOME: join(home, 'codex-home'),
      GEMINI_CLI_HOME: join(home, 'gemini-home'),
    };
    const { code, out, err } = await scan(['--json'], tempDir(), env);
    expect(code, err).toBe(EXIT_CODES.ok);
    const report = JSON.parse(out) as ScanReport;
    expect(report.sessions.map((s) => s.agent).sort()).toEqual(['claude', 'codex', 'gemini']);
    expect(report.sessions.find((s) => s.agent === 'gemini')?.project).toBe('repo');
  });

  it("names a Claude Code subagent's run by its own id, under its session's, as the hooks, status and the dashboard do", async () => {
    const home = tempDir();
    const project = join(home, '.claude', 'projects', '-repo');
    mkdirSync(join(project, 's1', 'subagents'), { recursive: true });
    const record = (type: string, content: unknown, extra: Record<string, unknown>) =>
      JSON.stringify({
        type,
        sessionId: 's1',
        cwd: '/repo',
        timestamp: '2026-11-25T10:00:00.000Z',
        message: { role: type, id: `m${type}`, content },
        ...extra,
      });
    const main = { isSidechain: false };
    const side = { isSidechain: true, agentId: 'a7f2e' };
    writeFileSync(join(project, 's1.jsonl'), `${record('user', 'Fix it.', main)}\n`);
    writeFileSync(
      join(project, 's1', 'subagents', 'agent-a7f2e.jsonl'),
      `${record('user', 'Search for x', side)}\n`,
    );
    const { code, out, err } = await scan(['--json'], tempDir(), { HOME: home });
    expect(code, err).toBe(EXIT_CODES.ok);
    const sessions = (JSON.parse(out) as ScanReport).sessions.map((s) => [s.sessionId, s.parentSessionId]);
    expect(sessions.sort()).toEqual([
      ['a7f2e', 's1'],
      ['s1', undefined],
    ]);
  });

  it("names a Gemini CLI session's project by the path Gemini CLI keeps beside its chats, as the hooks and status name it", async () => {
    const home = tempDir();
    const folder = join(home, '.gemini', 'tmp', 'shop-1');
    mkdirSync(join(folder, 'chats'), { recursive: true });
    writeFileSync(join(folder, '.project_root'), '/home/dev/shop');
    copyFileSync(fixture('gemini-0.61.0-looping.jsonl'), join(folder, 'chats', 'session.jsonl'));
    const env = { HOME: home, GEMINI_CLI_HOME: home };
    for (const filter of [
      [],
      ['--project', '/home/dev/shop'],
      ['--project', 'shop'],
      ['--project', 'shop-1'],
    ]) {
      const { code, out, err } = await scan(['--json', ...filter], tempDir(), env);
      expect(code, err).toBe(EXIT_CODES.ok);
      expect((JSON.parse(out) as ScanReport).sessions.map((s) => s.project)).toEqual(['/home/dev/shop']);
    }
  });
});

it("files a Gemini CLI subagent's chat (chats/<session>/<agent>.jsonl) under its session's project, as its subagent (polish62)", async () => {
  const home = tempDir();
  const folder = join(home, '.gemini', 'tmp', 'shop-1');
  const parent = 'a1cbc770-ba13-4353-9aa1-8a3ac27337e5';
  mkdirSync(join(folder, 'chats', parent), { recursive: true });
  writeFileSync(join(folder, '.project_root'), '/home/dev/shop');
  // written by Gemini CLI 0.61.0 (a generalist subagent against the scripted API of geminiSubagents.e2e)
  copyFileSync(
    fileURLToPath(new URL('./fixtures/gemini/gemini-0.61.0-subagent.jsonl', import.meta.url)),
    join(folder, 'chats', parent, '510d2a4f.jsonl'),
  );
  const env = { HOME: home, GEMINI_CLI_HOME: home };
  for (const filter of [[], ['--project', 'shop-1']]) {
    const { code, out, err } = await scan(['--json', ...filter], tempDir(), env);
    expect(code, err).toBe(EXIT_CODES.ok);
    expect((JSON.parse(out) as ScanReport).sessions.map((s) => [s.project, s.parentSessionId])).toEqual([
      ['/home/dev/shop', parent],
    ]);
  }
});

describe('loopguard scan: bad input', () => {
  it('reports a truncated last line, a file that is not JSON, an unknown format and an unreadable file in one line each, and goes on (exit 0)', async () => {
    const dir = tempDir();
    const whole = stepLines(8);
    writeFileSync(join(dir, 'a-truncated.jsonl'), `${whole}{"type":"action","tool":"ba`);
    writeFileSync(join(dir, 'b-not-json.jsonl'), 'hello\nworld\n');
    writeFileSync(join(dir, 'c-unknown.jsonl'), '{"kind":"something else"}\n');
    symlinkSync(join(dir, 'gone.jsonl'), join(dir, 'd-unreadable.jsonl'));
    writeFileSync(join(dir, 'e-good.jsonl'), whole);
    const { code, out, err } = await scan([dir, '--json']);
    expect(code).toBe(EXIT_CODES.ok);
    const lines = err.trim().split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(/a-truncated\.jsonl: truncated last line skipped$/);
    expect(lines[1]).toMatch(/b-not-json\.jsonl: not JSON$/);
    expect(lines[2]).toMatch(/c-unknown\.jsonl: unknown format$/);
    expect(lines[3]).toMatch(/d-unreadable\.jsonl: unreadable \(ENOENT\)$/);
    const report = JSON.parse(out) as ScanReport;
    expect(report.totals).toMatchObject({ files: 5, sessions: 2, sessionsWithLoops: 2, problems: 4 });
  });

  it('qa64: says "1 file skipped", and "2 files" for two, with sessions read and without', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'c-unknown.jsonl'), '{"kind":"something else"}\n');
    expect((await scan([dir])).out).toContain('\n1 file skipped or read in part (see stderr).\n');
    writeFileSync(join(dir, 'b-not-json.jsonl'), 'hello\n');
    writeFileSync(join(dir, 'e-good.jsonl'), stepLines(8));
    expect((await scan([dir])).out).toContain('2 files skipped or read in part (see stderr).');
  });

  it('qa66: a session stopped in two loops names its first stop, where status says loopguard stopped it', async () => {
    // a first loop (stopped at call 4, then it changes its approach), a second one with more waste
    const first = stepLines(4, ['ls']).trim().split('\n');
    const second = Array.from({ length: 8 }, () => [
      { type: 'action', tool: 'bash', input: 'npm test' },
      { type: 'observation', tool: 'bash', output: 'Error: Cannot find module ./cart.js', error: true },
    ]).flat();
    const dir = tempDir();
    writeFileSync(
      join(dir, 'two-loops.jsonl'),
      `${[...first, ...second.map((line) => JSON.stringify(line))].join('\n')}\n`,
    );
    const [session] = (await scanJson([dir])).sessions;
    const stops = session?.loops.flatMap((loop) => (loop.stopCall === null ? [] : [loop.stopCall]));
    expect(stops).toEqual([4, 9]);
    const { out } = await scan([dir]);
    const row = out.split('\n').find((line) => line.includes('two-loops')) ?? '';
    expect(row, out).toMatch(/\| call 4 +\|/);
    expect(row).toContain('make watch');
  });

  it('doors67: the tables say each loop kind in words; --json keeps the code', async () => {
    const report = await scanJson([fixtures]);
    const kinds = [...new Set(report.sessions.flatMap((session) => session.loops.map((loop) => loop.kind)))];
    expect(kinds.length).toBeGreaterThan(0);
    for (const kind of kinds) expect(kind).toMatch(/^[a-z]+(_[a-z]+)*$/);
    const { out } = await scan([fixtures]);
    for (const kind of kinds) {
      if (kind.includes('_')) expect(out).not.toContain(kind);
      expect(out).toContain(loopKindWords(kind));
    }
  });

  it('exits 2 with one line for a path that does not exist', async () => {
    const { code, out, err } = await scan([join(tempDir(), 'nowhere')]);
    expect(code).toBe(EXIT_CODES.usage);
    expect(out).toBe('');
    expect(err.trim().split('\n')).toHaveLength(1);
    expect(err).toMatch(/nowhere: no such file or folder/);
  });
});

describe('loopguard scan --html keeps what it quotes to the user (issue 38)', () => {
  it('writes the report, which quotes the commands and results of the transcripts, readable by this user only', async () => {
    const dir = tempDir();
    const { code, err } = await scan([fixture('claude-2.1.330-looping.jsonl'), '--html', 'report.html'], dir);
    expect(code, err).toBe(EXIT_CODES.ok);
    const file = join(dir, 'report.html');
    expect(readFileSync(file, 'utf8')).toContain('cat missing.txt');
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('never writes through a link, nor into another user’s file, in a folder others can write (trust41)', async () => {
    // /tmp without fs.protected_symlinks/protected_regular (this machine's 0 and 0): another user
    // makes the report's name first, a link to the victim's file or a file of theirs they read
    const dir = tempDir();
    const victim = join(dir, 'victim.sh');
    writeFileSync(victim, 'echo hi\n');
    symlinkSync(victim, join(dir, 'linked.html'));
    const linked = await scan([fixture('claude-2.1.330-looping.jsonl'), '--html', 'linked.html'], dir);
    expect(linked.code).toBe(EXIT_CODES.usage);
    expect(linked.err).toContain('--html: cannot write');
    expect(readFileSync(victim, 'utf8')).toBe('echo hi\n');
    const theirs = join(dir, 'theirs.html');
    writeFileSync(theirs, '');
    chmodSync(theirs, 0o666);
    const uid = process.getuid?.() ?? 0;
    vi.spyOn(process, 'getuid').mockReturnValue(uid + 1); // the file is now another user's
    try {
      const planted = await scan([fixture('claude-2.1.330-looping.jsonl'), '--html', 'theirs.html'], dir);
      expect(planted.code).toBe(EXIT_CODES.usage);
      expect(planted.err).toBe(
        `loopguard: --html: cannot write ${theirs} (it belongs to another user, uid ${uid})\n`,
      );
      expect(readFileSync(theirs, 'utf8')).toBe('');
    } finally {
      vi.restoreAllMocks();
    }
  });
});
