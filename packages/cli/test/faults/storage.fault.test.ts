import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../../src/terminal/exitCodes.js';
import { loopguard, tempRepo } from '../runHelpers.js';
import { inNamespace } from './faultHelpers.js';

const completes = 'echo $N >> w.txt\necho "<promise>COMPLETE</promise>"';
const hash = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');
const oneLine = (stderr: string) =>
  stderr
    .trim()
    .split('\n')
    .filter((l) => l.startsWith('loopguard:'));

describe('the state file under storage faults', () => {
  it('a state file that fails for another reason than corruption is never moved aside', async () => {
    const { dir } = tempRepo(completes);
    mkdirSync(join(dir, '.loopguard', 'state.db'), { recursive: true }); // not a file: an I/O problem
    const result = await loopguard(dir, ['run', '--prompt-file', 'PROMPT.md', '--', './agent.sh']);
    expect(result.code).toBe(EXIT_CODES.internalError);
    expect(oneLine(result.stderr)).toEqual([
      expect.stringMatching(/^loopguard: refusing .*state\.db: it is a directory, not a regular file/),
    ]);
    expect(readdirSync(join(dir, '.loopguard')).filter((f) => f.includes('corrupt'))).toEqual([]);
  });

  it('a full disk when opening: one line naming the path and cause, the file untouched, the history back once space is freed', async () => {
    const { dir } = tempRepo(completes);
    const result = await inNamespace(
      `mkdir .loopguard && mount -t tmpfs -o size=1m tmpfs .loopguard
$LOOPGUARD run --prompt-file PROMPT.md -- ./agent.sh >/dev/null 2>&1; echo "first=$?"
sha256sum .loopguard/state.db | cut -d' ' -f1 > ../before.sha
dd if=/dev/zero of=.loopguard/fill bs=4k 2>/dev/null
$LOOPGUARD run --prompt-file PROMPT.md -- ./agent.sh; echo "full=$?"
ls .loopguard; sha256sum .loopguard/state.db | cut -d' ' -f1 > ../after.sha
rm .loopguard/fill
$LOOPGUARD runs --json; echo "freed=$?"`,
      dir,
    );
    expect(result.stdout).toContain('first=0');
    expect(result.stdout).toContain(`full=${EXIT_CODES.internalError}`);
    expect(result.stderr).toMatch(
      /^loopguard: cannot open .*\.loopguard\/state\.db: .*(SQLITE_FULL|SQLITE_IOERR|ENOSPC)/m,
    );
    expect(result.stdout).not.toContain('corrupt');
    expect(readFileSync(join(dir, '..', 'before.sha'), 'utf8')).toBe(
      readFileSync(join(dir, '..', 'after.sha'), 'utf8'),
    );
    expect(result.stdout).toMatch(/"status":"completed"/);
    expect(result.stdout).toContain('freed=0');
  });

  it('on a read-only file system, runs reads the history and run fails in one line; nothing is touched', async () => {
    const { dir } = tempRepo(completes);
    expect((await loopguard(dir, ['run', '--prompt-file', 'PROMPT.md', '--', './agent.sh'])).code).toBe(0);
    const before = hash(join(dir, '.loopguard', 'state.db'));
    const listing = readdirSync(join(dir, '.loopguard')).sort();
    const result = await inNamespace(
      `mount --bind . . && mount -o remount,bind,ro . .
$LOOPGUARD runs; echo "runs=$?"
$LOOPGUARD run --prompt-file PROMPT.md -- ./agent.sh; echo "run=$?"`,
      dir,
    );
    expect(result.stdout).toMatch(/completed/);
    expect(result.stdout).toContain('runs=0');
    expect(result.stdout).toContain(`run=${EXIT_CODES.internalError}`);
    expect(oneLine(result.stderr)).toEqual([
      expect.stringMatching(/^loopguard: cannot open .*state\.db: .*(EROFS|read-only)/i),
    ]);
    expect(hash(join(dir, '.loopguard', 'state.db'))).toBe(before);
    expect(readdirSync(join(dir, '.loopguard')).sort()).toEqual(listing);
  });

  it('a disk that fills up mid-run ends the run failed, its reason recorded, exit 1 with one line', async () => {
    const { dir } = tempRepo(
      'echo $N >> w.txt\nif [ $N -eq 2 ]; then dd if=/dev/zero of=.loopguard/fill bs=4k 2>/dev/null; fi\necho working',
    );
    const result = await inNamespace(
      `mkdir .loopguard && mount -t tmpfs -o size=3m tmpfs .loopguard
$LOOPGUARD run --prompt-file PROMPT.md --max-iterations 4 -- ./agent.sh; echo "run=$?"
rm .loopguard/fill
$LOOPGUARD runs --json`,
      dir,
    );
    expect(result.stdout).toContain(`run=${EXIT_CODES.internalError}`);
    expect(oneLine(result.stderr)).toEqual([
      expect.stringMatching(/^loopguard: run \S+ failed: cannot write .*(ENOSPC|SQLITE_FULL)/),
    ]);
    const listed = JSON.parse(result.stdout.split('\n').find((l) => l.startsWith('{')) ?? '{}');
    expect(listed).toMatchObject({ status: 'failed', iteration: 1, exitCode: 1 });
    expect(listed.reason).toMatch(/^cannot write /);
    expect(existsSync(join(dir, '.loopguard'))).toBe(true);
  });
});

describe('a corrupt state file', () => {
  it('is reported, not moved, by a read-only command', async () => {
    const { dir } = tempRepo(completes);
    mkdirSync(join(dir, '.loopguard'));
    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(dir, '.loopguard', 'state.db'), 'this is not a database');
    const result = await loopguard(dir, ['runs']);
    expect(result.code).toBe(EXIT_CODES.internalError);
    expect(result.stderr.trim()).toMatch(/^loopguard: state file .* is corrupt .*moves it aside/);
    expect(readFileSync(join(dir, '.loopguard', 'state.db'), 'utf8')).toBe('this is not a database');
  });
});
