import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  appendFileSync,
  chmodSync,
  existsSync,
  lutimesSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { UsageRecord } from '@loopguard/core/spend';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { runCli } from '../src/main.js';
import { ClaudeTranscriptParser } from '../src/scan/ClaudeTranscriptParser.js';
import { CodexRolloutParser } from '../src/scan/CodexRolloutParser.js';
import { type Looked, ScanCache, scanCacheFile, scanCacheKey } from '../src/scan/scanCache.js';
import type { FileScan } from '../src/scan/scannedSession.js';
import { EXIT_CODES } from '../src/terminal/exitCodes.js';
import { SCAN_FIXTURES } from './agentTranscripts.js';
import { bufferedIo } from './helpers.js';

const fixtures = fileURLToPath(SCAN_FIXTURES);
const realNow = Date.now.bind(Date);
const made: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'loopguard-scan-cache-'));
  made.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});
const SOURCES = [
  'claude-2.1.330-looping.jsonl',
  'claude-2.1.330-progressing.jsonl',
  'codex-0.169.0-looping.jsonl',
  'gemini-0.61.0-looping.jsonl',
].map((name) => readFileSync(join(fixtures, name), 'utf8').split(/(?<=\n)/));

async function scan(args: string[], home: string) {
  const io = bufferedIo({ cwd: home, env: { NO_COLOR: '1', HOME: home } });
  const code = await runCli(['scan', ...args], io);
  return { code, out: io.out(), err: io.err() };
}

/** The cache a scan with `home` writes. */
const cacheOf = (home: string) => scanCacheFile({ HOME: home }) as string;

/** Rewrites the cache with a valid checksum after `edit` changed its entries (what a forger would do). */
function forge(
  home: string,
  edit: (entries: Record<string, [string, { session?: { sessionId: string } }]>) => void,
) {
  const file = cacheOf(home);
  const text = readFileSync(file);
  const end = text.indexOf(10);
  const header = text.subarray(0, end).toString().split(' ');
  const entries = JSON.parse(text.subarray(end + 1).toString());
  edit(entries);
  const body = Buffer.from(JSON.stringify(entries));
  header[3] = createHash('sha256').update(body).digest('hex');
  writeFileSync(file, Buffer.concat([Buffer.from(`${header.join(' ')}\n`), body]), { mode: 0o600 });
}

/** A cache whose every session is renamed `forged`: a scan that trusts it says so. */
function forgeAll(home: string): void {
  forge(home, (entries) => {
    for (const [, result] of Object.values(entries)) if (result.session) result.session.sessionId = 'forged';
  });
}

/** A few settled transcripts in `home/projects`, scanned once so that the cache holds them. */
async function scannedOnce(): Promise<{ home: string; files: string[] }> {
  const home = tempDir();
  const folder = join(home, 'projects');
  mkdirSync(folder);
  const files = SOURCES.map((lines, i) => {
    const file = join(folder, `s${i}.jsonl`);
    writeFileSync(file, lines.join(''));
    return file;
  });
  const first = await scan(['projects', '--json'], home);
  expect(first.code, first.err).toBe(EXIT_CODES.ok);
  return { home, files };
}

/**
 * Rewrites `file` with other ids of the same length (the session's among them) and gives it back its
 * modification time (a whole second, kept exactly): only the change time tells.
 */
function sameSizeAndTime(file: string): void {
  const { mtime } = statSync(file);
  const text = readFileSync(file, 'utf8');
  const other = text.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, (id) =>
    id.replace(/^./, (c) => (c === 'a' ? 'b' : 'a')),
  );
  writeFileSync(file, other);
  utimesSync(file, mtime, mtime);
  expect(statSync(file).mtimeMs).toBe(mtime.getTime());
}

/** A seeded generator of numbers in [0, 1) (mulberry32). */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('loopguard scan remembers what it read (the scan cache)', () => {
  // each scan runs 10 s after the files' last change, as a user's does: long enough for a file to
  // be remembered (a file changed in the last 2 s is read, not remembered: see the last tests)
  beforeEach(() => {
    vi.spyOn(Date, 'now').mockImplementation(() => realNow() + 10_000);
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it.each([1, 2, 3])(
    'gives the cold report byte for byte after any appends, rewrites, removals (seed %i)',
    async (seed) => {
      const next = random(seed);
      const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)] as T;
      const home = tempDir();
      const folder = join(home, 'projects');
      mkdirSync(folder);
      // each file: which source it copies and how many of its lines it holds so far
      const state = new Map<string, { source: number; lines: number }>();
      const write = (file: string) => {
        const { source, lines } = state.get(file) as { source: number; lines: number };
        writeFileSync(file, (SOURCES[source] as string[]).slice(0, lines).join(''));
      };
      for (let i = 0; i < 4; i++) {
        const file = join(folder, `s${i}.jsonl`);
        state.set(file, { source: i, lines: 1 + Math.floor(next() * 10) });
        write(file);
        utimesSync(file, Math.floor(realNow() / 1000) - 200, Math.floor(realNow() / 1000) - 200);
      }
      for (let round = 0; round < 10; round++) {
        const file = pick([...state.keys()]);
        const now = state.get(file);
        const what =
          now === undefined ? 'create' : pick(['append', 'append', 'rewrite', 'same size', 'remove']);
        if (what === 'create') {
          state.set(file, { source: Math.floor(next() * SOURCES.length), lines: 1 + Math.floor(next() * 5) });
          write(file);
        } else if (what === 'append' && now !== undefined) {
          const lines = SOURCES[now.source] as string[];
          const more = Math.min(lines.length, now.lines + 1 + Math.floor(next() * 8));
          appendFileSync(file, lines.slice(now.lines, more).join(''));
          now.lines = more;
        } else if (what === 'rewrite' && now !== undefined) {
          now.source = (now.source + 1) % SOURCES.length;
          write(file);
        } else if (what === 'same size' && now !== undefined) {
          sameSizeAndTime(file);
        } else {
          rmSync(file);
          state.delete(file);
        }
        // whole seconds, so that a rewrite can give a file back its time exactly
        const second = Math.floor(realNow() / 1000) - 100 + round;
        if (what !== 'same size' && what !== 'remove') utimesSync(file, second, second);
        const warm = await scan(['projects', '--json'], home);
        const cold = await scan(['projects', '--json', '--no-cache'], home);
        expect(warm.code, warm.err).toBe(cold.code);
        expect(warm.out).toBe(cold.out);
        expect(warm.err).toBe(cold.err);
        // the table too (it reads fields the JSON leaves out when absent)
        expect((await scan(['projects'], home)).out).toBe((await scan(['projects', '--no-cache'], home)).out);
      }
      expect(existsSync(cacheOf(home))).toBe(true);
    },
  );

  it('does not read a file it knows unchanged (a forged entry shows), and writes its cache for the user alone', async () => {
    const { home } = await scannedOnce();
    const file = cacheOf(home);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(home, '.cache', 'loopguard')).mode & 0o777).toBe(0o700);
    forgeAll(home);
    const warm = await scan(['projects', '--json'], home);
    expect(warm.out).toContain('"sessionId": "forged"');
  });

  it('reads a file again whose size and modification time stayed while its bytes changed', async () => {
    const { home, files } = await scannedOnce();
    const file = files[0] as string;
    const second = Math.floor(realNow() / 1000) - 100;
    utimesSync(file, second, second);
    await scan(['projects', '--json'], home); // remembered at this time
    sameSizeAndTime(file);
    const warm = await scan(['projects', '--json'], home);
    const cold = await scan(['projects', '--json', '--no-cache'], home);
    expect(warm.out).toBe(cold.out);
  });

  it('reads a Gemini CLI chat again when the file naming its project changed (the report reads both)', async () => {
    const home = tempDir();
    const chats = join(home, 'tmp', 'proj', 'chats');
    mkdirSync(chats, { recursive: true });
    writeFileSync(join(chats, 'session-1.jsonl'), (SOURCES[3] as string[]).join(''));
    const root = join(home, 'tmp', 'proj', '.project_root');
    writeFileSync(root, '/work/first\n');
    expect((await scan(['tmp', '--json'], home)).out).toContain('"project": "/work/first"');
    writeFileSync(root, '/work/second\n');
    const warm = await scan(['tmp', '--json'], home);
    expect(warm.out).toContain('"project": "/work/second"');
    rmSync(root);
    expect((await scan(['tmp', '--json'], home)).out).toBe(
      (await scan(['tmp', '--json', '--no-cache'], home)).out,
    );
  });

  it.each([
    ['--no-cache', ['--no-cache'], {}],
    ['LOOPGUARD_SCAN_CACHE=off', [], { LOOPGUARD_SCAN_CACHE: 'off' }],
  ])('reads everything with %s, and leaves the cache as it was', async (_name, args, env) => {
    const { home, files } = await scannedOnce();
    forgeAll(home);
    appendFileSync(files[0] as string, '\n'); // a change the cache would otherwise remember
    const before = readFileSync(cacheOf(home));
    const io = bufferedIo({ cwd: home, env: { HOME: home, ...env } });
    expect(await runCli(['scan', 'projects', '--json', ...args], io), io.err()).toBe(EXIT_CODES.ok);
    expect(io.out()).not.toContain('forged');
    expect(readFileSync(cacheOf(home))).toEqual(before);
  });

  it.each([
    ['a cache readable by others', (file: string) => chmodSync(file, 0o644)],
    ['a cache folder open to others', (file: string) => chmodSync(join(file, '..'), 0o755)],
    ['a corrupt cache (its checksum fails)', (file: string) => appendFileSync(file, ' ')],
    [
      'a cache of another layout',
      (file: string) => {
        const text = readFileSync(file, 'latin1');
        writeFileSync(file, text.replace(/^loopguard-scan-cache 1 /, 'loopguard-scan-cache 0 '), 'latin1');
      },
    ],
    [
      'a FIFO in the cache’s place (never waited on)',
      (file: string) => {
        rmSync(file);
        execFileSync('mkfifo', ['-m', '600', file]);
      },
    ],
    [
      'a cache that is a symbolic link',
      (file: string) => {
        renameSync(file, `${file}.real`);
        symlinkSync(`${file}.real`, file);
      },
    ],
  ])('ignores %s, and the report is the cold one', async (_name, spoil) => {
    const { home } = await scannedOnce();
    forgeAll(home);
    spoil(cacheOf(home));
    const warm = await scan(['projects', '--json'], home);
    const cold = await scan(['projects', '--json', '--no-cache'], home);
    expect(warm.out).not.toContain('forged');
    expect(warm.out).toBe(cold.out);
    expect(warm.err).toBe(cold.err);
  });

  it('review54: keys setups apart that differ only in an exempt command (a RegExp reads `{}` in JSON)', () => {
    const setup = (source: string) => ({ detector: { exemptCommands: [new RegExp(source)] }, pricing: null });
    expect(scanCacheKey(setup('^make '))).not.toBe(scanCacheKey(setup('^cat ')));
    expect(scanCacheKey(setup('^make '))).toBe(scanCacheKey(setup('^make ')));
  });

  it('trusts no cache of another user, nor one written with another key (a new build, other options)', async () => {
    const { home, files } = await scannedOnce();
    const file = cacheOf(home);
    const key = readFileSync(file, 'latin1').split('\n')[0]?.split(' ')[2] as string;
    const uid = process.getuid?.() as number;
    const target = files[0] as string;
    const known = (cache: ScanCache) => {
      const looked = cache.look(target);
      return looked === undefined ? undefined : cache.result(target, looked);
    };
    expect(known(ScanCache.open(file, key, uid))?.session?.file).toBe(target);
    expect(known(ScanCache.open(file, key, uid + 1))).toBeUndefined();
    expect(known(ScanCache.open(file, scanCacheKey({ other: true }), uid))).toBeUndefined();
    const options = await scan(['projects', '--json'], home);
    writeFileSync(join(home, 'loopguard.config.json'), JSON.stringify({ hook: { repeatThreshold: 4 } }));
    forgeAll(home);
    const otherOptions = await scan(['projects', '--json'], home);
    expect(otherOptions.code, otherOptions.err).toBe(EXIT_CODES.ok);
    expect(options.out).not.toContain('forged');
    expect(otherOptions.out).not.toContain('forged');
  });

  it('does not remember a read that failed (an I/O error, a worker that died on the file): another scan may read it', () => {
    const home = tempDir();
    const file = join(home, 'a.jsonl');
    writeFileSync(file, 'x\n');
    const at = join(home, 'c', 'scan-cache');
    const remembered = (result: FileScan) => {
      const first = ScanCache.open(at, 'k');
      first.remember(file, first.look(file), result);
      first.save([home]);
      const next = ScanCache.open(at, 'k');
      return next.result(file, next.look(file) as Looked);
    };
    const problem = { file, problem: 'could not be read (worker died)' };
    expect(remembered({ problem, readFailed: true })).toBeUndefined();
    expect(remembered({ problem })).toEqual({ problem });
  });

  it('does not remember a file changed in the last seconds (its next change could keep its size and times)', async () => {
    vi.restoreAllMocks(); // the real clock
    const home = tempDir();
    const file = join(home, 'fresh.jsonl');
    writeFileSync(file, (SOURCES[0] as string[]).join(''));
    const cache = ScanCache.open(join(home, 'c', 'scan-cache'), 'k');
    expect(cache.look(file)?.settled).toBe(false);
    vi.spyOn(Date, 'now').mockImplementation(() => realNow() + 2_500);
    expect(cache.look(file)?.settled).toBe(true);
  });

  it('removes the temporary files a scan left when it died before renaming them: its own, old, never a link', async () => {
    const { home, files } = await scannedOnce();
    const folder = join(home, '.cache', 'loopguard');
    const old = new Date(realNow() - 11 * 60 * 1000);
    const temp = (name: string) => join(folder, `.scan-cache-${name}`);
    writeFileSync(temp('4242-0123456789ab'), 'left'); // a scan that died 11 minutes ago
    utimesSync(temp('4242-0123456789ab'), old, old);
    writeFileSync(temp('4243-0123456789ab'), 'being written'); // another scan's, just now
    const elsewhere = join(home, 'keep.txt');
    writeFileSync(elsewhere, 'not the cache');
    symlinkSync(elsewhere, temp('4244-0123456789ab'));
    lutimesSync(temp('4244-0123456789ab'), old, old);
    writeFileSync(join(folder, 'other-file'), 'not a temporary file of the cache');
    utimesSync(join(folder, 'other-file'), old, old);
    appendFileSync(files[0] as string, '\n'); // something changed: the cache is written
    const next = await scan(['projects', '--json'], home);
    expect(next.code, next.err).toBe(EXIT_CODES.ok);
    expect(readdirSync(folder).sort()).toEqual(
      ['.scan-cache-4243-0123456789ab', '.scan-cache-4244-0123456789ab', 'other-file', 'scan-cache'].sort(),
    );
    expect(readFileSync(elsewhere, 'utf8')).toBe('not the cache');
  });

  it('run as another user with this HOME (sudo): makes no folder, uses no cache, and says why once', async () => {
    const uid = process.getuid?.() as number;
    const home = tempDir();
    mkdirSync(join(home, 'projects'));
    writeFileSync(join(home, 'projects', 's.jsonl'), (SOURCES[0] as string[]).join(''));
    const cold = await scan(['projects', '--json', '--no-cache'], home);
    const getuid = vi.spyOn(process, 'getuid').mockReturnValue(uid + 1); // root, say, with the user's HOME
    const asRoot = await scan(['projects', '--json'], home);
    expect(asRoot.out).toBe(cold.out);
    expect(asRoot.err).toBe(
      `${cold.err}loopguard scan: the cache is off: ${home} belongs to another user (uid ${uid}), not to this one (uid ${uid + 1})\n`,
    );
    expect(existsSync(join(home, '.cache'))).toBe(false);
    getuid.mockRestore();
    // the user's own scan then keeps the cache, and the other user's scan leaves it alone
    expect((await scan(['projects', '--json'], home)).err).toBe(cold.err);
    const before = readFileSync(cacheOf(home));
    forgeAll(home);
    const forged = readFileSync(cacheOf(home));
    vi.spyOn(process, 'getuid').mockReturnValue(uid + 1);
    const again = await scan(['projects', '--json'], home);
    expect(again.out).not.toContain('forged');
    expect(again.err).toContain(
      `the cache is off: ${join(home, '.cache', 'loopguard')} belongs to another user`,
    );
    expect(readFileSync(cacheOf(home))).toEqual(forged);
    expect(before).not.toEqual(forged);
  });

  it('finds its file under XDG_CACHE_HOME, else ~/.cache (the account home without HOME), never a relative folder', () => {
    expect(scanCacheFile({ XDG_CACHE_HOME: '/x', HOME: '/h' })).toBe('/x/loopguard/scan-cache');
    expect(scanCacheFile({ XDG_CACHE_HOME: 'rel', HOME: '/h' })).toBe('/h/.cache/loopguard/scan-cache');
    expect(scanCacheFile({ HOME: 'rel' })).toBeUndefined();
    expect(scanCacheFile({ HOME: 'rel', XDG_CACHE_HOME: 'rel' })).toBeUndefined();
    expect(scanCacheFile({ HOME: '/h', LOOPGUARD_SCAN_CACHE: 'off' })).toBeUndefined();
  });
});

describe('a reply is priced at its own time, so that a remembered cost is the cost another day', () => {
  const at = '2026-03-01T10:00:00.000Z';
  it('Claude Code: the record’s timestamp', () => {
    const parser = new ClaudeTranscriptParser();
    const record = {
      type: 'assistant',
      sessionId: 's',
      timestamp: at,
      requestId: 'r',
      message: {
        id: 'm',
        model: 'claude-sonnet-4-5',
        usage: { input_tokens: 3, output_tokens: 9 },
        content: [],
      },
    };
    const read = parser.push(record);
    expect((read.usage as UsageRecord).at).toBe(Date.parse(at));
  });

  it('Codex: the token count’s timestamp', () => {
    const parser = new CodexRolloutParser();
    const usage = { input_tokens: 5, cached_input_tokens: 1, output_tokens: 2, total_tokens: 7 };
    const read = parser.push({
      timestamp: at,
      type: 'event_msg',
      payload: { type: 'token_count', info: { total_token_usage: usage, last_token_usage: usage } },
    });
    expect((read.usage as UsageRecord).at).toBe(Date.parse(at));
  });

  it('a file with a reply of no time is priced at the time of the scan: read again each time, never remembered', async () => {
    vi.spyOn(Date, 'now').mockImplementation(() => realNow() + 10_000);
    const home = tempDir();
    mkdirSync(join(home, 'projects'));
    const timed = join(home, 'projects', 'timed.jsonl');
    const untimed = join(home, 'projects', 'untimed.jsonl');
    const lines = SOURCES[0] as string[];
    writeFileSync(timed, lines.join(''));
    writeFileSync(
      untimed,
      lines
        .map((line) => {
          const record = JSON.parse(line);
          delete record.timestamp;
          return `${JSON.stringify(record)}\n`;
        })
        .join(''),
    );
    const remembered = () => {
      const text = readFileSync(cacheOf(home), 'utf8');
      return Object.keys(JSON.parse(text.slice(text.indexOf('\n') + 1))).sort();
    };
    expect((await scan(['projects', '--json'], home)).code).toBe(EXIT_CODES.ok);
    expect(remembered()).toEqual([timed]);
    // with one price for every model (--price) no reply is priced from the library: both remembered
    expect((await scan(['projects', '--json', '--price', '3'], home)).code).toBe(EXIT_CODES.ok);
    expect(remembered()).toEqual([timed, untimed]);
    vi.restoreAllMocks();
  });
});
