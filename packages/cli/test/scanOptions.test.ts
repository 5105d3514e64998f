import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from '../src/main.js';
import { parseDay } from '../src/scan/days.js';
import type { ScanReport } from '../src/scan/scanReport.js';
import { transcriptPlaces } from '../src/scan/transcriptPlaces.js';
import { EXIT_CODES } from '../src/terminal/exitCodes.js';
import { SCAN_FIXTURES } from './agentTranscripts.js';
import { bufferedIo } from './helpers.js';

// `--since`, `--until`, `--timezone`, `--project`, the places scan looks in with no path, and what
// it says when it finds nothing. The fixtures' sessions all start on 2026-11-25 at 23:58 UTC.
const fixtures = fileURLToPath(SCAN_FIXTURES);
const fixture = (name: string) => join(fixtures, name);
const tempDir = () => mkdtempSync(join(tmpdir(), 'loopguard-scan-options-'));

async function scan(args: string[], env: NodeJS.ProcessEnv = {}, cwd = tempDir()) {
  const io = bufferedIo({ cwd, env });
  const code = await runCli(['scan', ...args], io);
  return { code, out: io.out(), err: io.err() };
}

async function sessionsOf(args: string[], env: NodeJS.ProcessEnv = {}): Promise<ScanReport['sessions']> {
  const { code, out, err } = await scan([...args, '--json'], env);
  expect(code, err).toBe(EXIT_CODES.ok);
  return (JSON.parse(out) as ScanReport).sessions;
}

describe('loopguard scan --since / --until / --timezone', () => {
  it('takes the days as ccusage does, YYYYMMDD or YYYY-MM-DD, both ends included', async () => {
    expect(
      await sessionsOf([fixtures, '--since', '20261125', '--until', '2026-11-25', '--timezone', 'UTC']),
    ).toHaveLength(6);
    expect(await sessionsOf([fixtures, '--since', '2026-11-26', '--timezone', 'UTC'])).toHaveLength(0);
    expect(await sessionsOf([fixtures, '--until', '20261124', '--timezone', 'UTC'])).toHaveLength(0);
  });

  it('counts days in the time zone asked (Tokyo is already on the 26th)', async () => {
    expect(await sessionsOf([fixtures, '--since', '20261126', '--timezone', 'Asia/Tokyo'])).toHaveLength(6);
    expect(await sessionsOf([fixtures, '--until', '20261125', '--timezone', 'Asia/Tokyo'])).toHaveLength(0);
  });

  it("dates each session in its table on the day --since counted it, in the time zone asked or the machine's (qa47)", async () => {
    const dates = (out: string) => [...new Set(out.match(/\| 20\d\d-\d\d-\d\d \|/g))];
    const tokyo = await scan([fixtures, '--since', '20261126', '--timezone', 'Asia/Tokyo']);
    expect(tokyo.code, tokyo.err).toBe(EXIT_CODES.ok);
    expect(dates(tokyo.out)).toEqual(['| 2026-11-26 |']);
    const before = process.env.TZ;
    try {
      process.env.TZ = 'Asia/Tokyo';
      expect(dates((await scan([fixtures])).out)).toEqual(['| 2026-11-26 |']);
    } finally {
      if (before === undefined) delete process.env.TZ;
      else process.env.TZ = before;
    }
    expect(dates((await scan([fixtures, '--timezone', 'UTC'])).out)).toEqual(['| 2026-11-25 |']);
  });

  it('says how many sessions it read when the dates leave none', async () => {
    const { code, out } = await scan([fixtures, '--since', '2027-01-01', '--timezone', 'UTC']);
    expect(code).toBe(EXIT_CODES.ok);
    expect(out).toContain('6 sessions read, none started 2027-01-01 to … (UTC).');
  });

  it.each([
    ['--since', '2026-13-01'],
    ['--until', '20261131'],
    ['--since', 'yesterday'],
    ['--timezone', 'Mars/Olympus'],
  ])('refuses %s %s with one line and exit 2, before reading anything', async (option, value) => {
    const { code, out, err } = await scan([fixtures, option, value]);
    expect(code).toBe(EXIT_CODES.usage);
    expect(out).toBe('');
    expect(err.split('\n')[0]).toContain(`option '${option}`);
    expect(err).not.toMatch(/\n\s+at /);
  });

  it('refuses --since after --until with one line and exit 2', async () => {
    const { code, err } = await scan([fixtures, '--since', '20261201', '--until', '20261101']);
    expect(code).toBe(EXIT_CODES.usage);
    expect(err.trim()).toBe('loopguard: --since 2026-12-01 is after --until 2026-11-01');
  });

  it('parses only days of the calendar', () => {
    expect(parseDay('20260229')).toBeUndefined();
    expect(parseDay('20280229')).toBe('2028-02-29');
    expect(parseDay('2026-1-05')).toBeUndefined();
  });
});

describe('loopguard scan --project', () => {
  /** The Claude Code fixtures filed as Claude Code files them: ~/.claude/projects/<folder>/. */
  function claudeHome(): string {
    const home = tempDir();
    const folder = join(home, '.claude', 'projects', '-home-dev-shop');
    mkdirSync(folder, { recursive: true });
    copyFileSync(fixture('claude-2.1.330-looping.jsonl'), join(folder, 'a.jsonl'));
    copyFileSync(fixture('codex-0.169.0-looping.jsonl'), join(home, 'b.jsonl'));
    return home;
  }

  it('keeps the sessions of a project named by its folder (as ccusage names it), its path or its last folder', async () => {
    const home = claudeHome();
    const byFolder = await sessionsOf([home, '--project', '-home-dev-shop']);
    expect(byFolder.map((s) => s.agent)).toEqual(['claude']);
    const project = byFolder[0]?.project as string;
    expect(await sessionsOf([home, '--project', project])).toHaveLength(1);
    expect(await sessionsOf([home, '--project', project.split('/').pop() as string])).toHaveLength(1);
    expect(await sessionsOf([home, '--project', 'elsewhere'])).toHaveLength(0);
  });

  it('says so when no session is of the project', async () => {
    const { out } = await scan([claudeHome(), '--project', 'elsewhere']);
    expect(out).toContain('2 sessions read, none in project elsewhere.');
  });
});

describe('loopguard scan with no path: the places of the CLIs and ccusage', () => {
  it('reads every folder of a comma-separated CLAUDE_CONFIG_DIR, as ccusage does', async () => {
    const home = tempDir();
    for (const [dir, name] of [
      ['one', 'claude-2.1.330-looping.jsonl'],
      ['two', 'claude-2.1.330-progressing.jsonl'],
    ] as const) {
      mkdirSync(join(home, dir, 'projects', '-p'), { recursive: true });
      copyFileSync(fixture(name), join(home, dir, 'projects', '-p', name));
    }
    const env = {
      HOME: join(home, 'nobody'),
      CLAUDE_CONFIG_DIR: ` ${join(home, 'one')},${join(home, 'two', 'projects')}`,
    };
    expect((await sessionsOf([], env)).map((s) => s.agent)).toEqual(['claude', 'claude']);
  });

  it('reads ~/.config/claude/projects (or $XDG_CONFIG_HOME/claude) as well as ~/.claude/projects', async () => {
    const home = tempDir();
    for (const dir of [
      join(home, '.config', 'claude', 'projects', '-p'),
      join(home, '.claude', 'projects', '-p'),
    ]) {
      mkdirSync(dir, { recursive: true });
    }
    copyFileSync(
      fixture('claude-2.1.330-looping.jsonl'),
      join(home, '.config', 'claude', 'projects', '-p', 'a.jsonl'),
    );
    copyFileSync(
      fixture('claude-2.1.330-progressing.jsonl'),
      join(home, '.claude', 'projects', '-p', 'b.jsonl'),
    );
    expect(await sessionsOf([], { HOME: home })).toHaveLength(2);
    const places = transcriptPlaces({ HOME: home, XDG_CONFIG_HOME: '/xdg' }, '/work');
    expect(places.filter((p) => p.agent === 'Claude Code').map((p) => p.path)).toEqual([
      '/xdg/claude/projects',
      join(home, '.claude', 'projects'),
    ]);
  });

  it("reads ccusage's GEMINI_DATA_DIR beside Gemini CLI's own GEMINI_CLI_HOME, each file once", async () => {
    const home = tempDir();
    const chats = join(home, 'gemini', '.gemini', 'tmp', 'repo', 'chats');
    mkdirSync(chats, { recursive: true });
    copyFileSync(fixture('gemini-0.61.0-looping.jsonl'), join(chats, 'session-1.jsonl'));
    const env = {
      HOME: join(home, 'nobody'),
      GEMINI_CLI_HOME: join(home, 'gemini'),
      GEMINI_DATA_DIR: join(home, 'gemini', '.gemini'),
    };
    expect((await sessionsOf([], env)).map((s) => s.agent)).toEqual(['gemini']);
  });

  it('with nothing found, says where it looked and why it may be empty', async () => {
    const home = tempDir();
    mkdirSync(join(home, '.claude', 'projects'), { recursive: true });
    const { code, out } = await scan([], { HOME: home });
    expect(code).toBe(EXIT_CODES.ok);
    expect(out).toContain('No sessions found. loopguard scan looked in:');
    expect(out).toContain(`Claude Code    ${join(home, '.config', 'claude', 'projects')} (not there)`);
    expect(out).toMatch(new RegExp(`Claude Code    ${join(home, '.claude', 'projects')}\\n`));
    expect(out).toContain(`Codex          ${join(home, '.codex', 'sessions')} (not there)`);
    expect(out).toContain(`Gemini CLI     ${join(home, '.gemini', 'tmp')} (not there)`);
    expect(out).toContain('cleanupPeriodDays');
  });

  it('with --json, prints the empty report and says where it looked on stderr', async () => {
    const { code, out, err } = await scan(['--json'], { HOME: tempDir() });
    expect(code).toBe(EXIT_CODES.ok);
    expect((JSON.parse(out) as ScanReport).sessions).toEqual([]);
    expect(err).toMatch(/^loopguard scan: No sessions found\. loopguard scan looked in:/);
  });

  it('with a path that holds no transcript, says what it reads', async () => {
    const { out } = await scan([tempDir()]);
    expect(out).toContain('No sessions in ');
    expect(out).toContain('scan reads .jsonl transcripts');
  });
});

// qa53: a report that cannot be written was said after every file had been read (minutes over a
// long history), below the lines of that reading
describe('loopguard scan --html into a folder that is not there', () => {
  it('is one line and exit 2 before any file is read', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'notes.jsonl'), 'not json\n');
    const report = join(dir, 'missing', 'loops.html');
    const { code, out, err } = await scan([dir, '--html', report]);
    expect(code).toBe(EXIT_CODES.usage);
    expect(out).toBe('');
    expect(err).toBe(`loopguard: --html: cannot write ${report} (no folder ${join(dir, 'missing')})\n`);
  });
  it('qa68: a folder given as the report says so in words, not EISDIR', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'notes.jsonl'), 'not json\n');
    const { code, err } = await scan([dir, '--html', dir]);
    expect(code).toBe(EXIT_CODES.usage);
    expect(err).toBe(`loopguard: --html: cannot write ${dir} (it is a folder: name a file in it)\n`);
  });
});
