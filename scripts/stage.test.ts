import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const stageScript = fileURLToPath(new URL('./lib/stage.sh', import.meta.url));
const tmp = mkdtempSync(join(tmpdir(), 'loopguard-stage-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Runs `script` in bash after sourcing stage.sh, with TMPDIR in a scratch directory. */
async function bash(script: string): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)('bash', ['-c', `source ${stageScript}\n${script}`], {
      env: { ...process.env, TMPDIR: tmp, LOOPGUARD_LOG: '' },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('the quiet install stages (scripts/lib/stage.sh)', () => {
  it('prints one line per stage, keeps the noise in the log, and removes the log when all succeeded', async () => {
    const result = await bash(
      'stage "compiling" seq -f "gyp info line %g" 200\necho "$LOOPGUARD_LOG" > "$TMPDIR/log-path"\nstages_done',
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^loopguard: compiling \.\.\. done \(\d+s\)\n$/);
    expect(result.stderr).toBe('');
    const log = readFileSync(join(tmp, 'log-path'), 'utf8').trim();
    expect(existsSync(log)).toBe(false);
  });

  it('on failure prints the last lines of the log and its path, keeps the log, and exits with the code', async () => {
    const result = await bash(
      'stage "installing" bash -c "echo gyp ERR! build error; echo detail >&2; exit 7"\necho not reached',
    );
    expect(result.code).toBe(7);
    expect(result.stdout).toBe('loopguard: installing ... FAILED (exit 7)\n');
    expect(result.stderr).toContain('gyp ERR! build error');
    const path = /the full log is (\S+)/.exec(result.stderr)?.[1] ?? '';
    expect(readFileSync(path, 'utf8')).toContain('detail');
  });
});
