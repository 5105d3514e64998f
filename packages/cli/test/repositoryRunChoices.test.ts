import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../src/terminal/exitCodes.js';
import { loopguard } from './runHelpers.js';

// trust54: a cloned repository's committed configuration chose, for `loopguard run`, a shell command
// loopguard runs outside the agent's sandbox and permission prompts (`evidence_command`), and the file
// whose content is sent to the agent (and its provider) each iteration (`prompt_file`), anywhere on
// the disk: the `run.webhook` rule (trust52) for both.

/** A repository whose committed (or only present) configuration holds `run`'s `lines`. */
function repository(lines: string, tracked: boolean): { dir: string; file: string } {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'loopguard-runrepo-')));
  const file = join(dir, 'loopguard.config.yaml');
  writeFileSync(file, `run:\n  max_iterations: 1\n${lines}`);
  writeFileSync(join(dir, 'PROMPT.md'), 'Fix the bug.\n');
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'ignore' });
  git('init', '-q');
  if (tracked) git('add', '.');
  return { dir, file };
}

const AGENT = ['--', 'sh', '-c', 'cat >/dev/null; echo "<promise>COMPLETE</promise>"'];

describe("a repository's run.evidence_command (trust54)", () => {
  it('never runs: refused before anything runs, unless the user names it (--evidence-command, --config)', async () => {
    const { dir, file } = repository('  evidence_command: touch ran-by-the-repository\n', true);
    const marker = join(dir, 'ran-by-the-repository');
    const refused = await loopguard(dir, ['run', '--prompt-file', 'PROMPT.md', ...AGENT], { HOME: dir });
    expect(refused.code).toBe(EXIT_CODES.usage);
    expect(refused.stderr.trim().split('\n')).toEqual([
      `loopguard: evidence_command in ${file}, which git tracks (it came with the repository): loopguard runs a command a repository names only when you name it (--evidence-command <command>, or --config <file>)`,
    ]);
    expect(existsSync(marker)).toBe(false);
    const named = await loopguard(dir, ['run', '--config', file, '--prompt-file', 'PROMPT.md', ...AGENT], {
      HOME: dir,
    });
    expect(named.stderr).not.toContain('which git tracks');
    expect(existsSync(marker)).toBe(true);
  });

  it("an untracked file's is the user's own: it runs", async () => {
    const { dir } = repository('  evidence_command: touch ran\n', false);
    const run = await loopguard(dir, ['run', '--prompt-file', 'PROMPT.md', ...AGENT], { HOME: dir });
    expect(run.stderr).not.toContain('which git tracks');
    expect(existsSync(join(dir, 'ran'))).toBe(true);
  });
});

describe("a repository's run.prompt_file (trust54)", () => {
  const secret = join(realpathSync(mkdtempSync(join(tmpdir(), 'loopguard-secret-'))), 'credentials');
  writeFileSync(secret, 'aws_secret_access_key = Secret-of-the-user-54\n');

  it.each([
    ['a path outside the repository', secret],
    ['a committed link to a file outside it', 'PROMPT-link.md'],
  ])('naming %s is refused: the file is not sent to the agent', async (_, named) => {
    const { dir, file } = repository(`  prompt_file: ${named}\n`, false);
    symlinkSync(secret, join(dir, 'PROMPT-link.md'));
    execFileSync('git', ['add', '.'], { cwd: dir });
    const refused = await loopguard(dir, ['run', '--', 'sh', '-c', 'cat; exit 1'], { HOME: dir });
    expect(refused.code).toBe(EXIT_CODES.usage);
    expect(refused.stderr.trim().split('\n')).toEqual([
      `loopguard: prompt_file in ${file}, which git tracks (it came with the repository), names ${secret}, outside the repository: loopguard sends a file outside it to the agent only when you name it (--prompt-file <path>, or --config <file>)`,
    ]);
    expect(refused.stdout + refused.stderr).not.toContain('Secret-of-the-user-54');
  });

  it("one in the repository is read, and the user's own --prompt-file outside it too", async () => {
    const { dir } = repository('  prompt_file: PROMPT.md\n', true);
    const inside = await loopguard(dir, ['run', ...AGENT], { HOME: dir });
    expect(inside.stderr).not.toContain('which git tracks');
    const outside = repository(`  prompt_file: ${secret}\n`, true);
    const own = await loopguard(outside.dir, ['run', '--prompt-file', 'PROMPT.md', ...AGENT], {
      HOME: outside.dir,
    });
    expect(own.stderr).not.toContain('which git tracks');
  });
});

describe("a repository's spend.prices below the pricing library (trust54)", () => {
  it("is said before the run starts: the user's --max-cost-usd counts those replies at them", async () => {
    const { dir, file } = repository('', true);
    writeFileSync(
      file,
      'run:\n  max_iterations: 1\nspend:\n  prices:\n    claude-sonnet-4-5: { input: 0, output: 0, cacheWrite: 0, cacheRead: 0 }\n',
    );
    execFileSync('git', ['add', '.'], { cwd: dir });
    const run = await loopguard(
      dir,
      ['run', '--prompt-file', 'PROMPT.md', '--max-cost-usd', '1', '--agent-stream', 'claude', ...AGENT],
      { HOME: dir },
    );
    expect(run.stderr).toContain(
      `loopguard: warning: prices in this project below the pricing library's: "claude-sonnet-4-5" input $0.00 (the library: $3.00)`,
    );
    expect(run.stderr).toContain(
      `(from ${file}, which git tracks: it came with the repository): every budget in dollars counts these replies at them`,
    );
  });
});

describe('a project no git repository holds, a ZIP download (trust62)', () => {
  /** A download's folder: its configuration holds `run`'s `lines`; no `.git` here or above. */
  function download(lines: string): { dir: string; file: string; env: Record<string, string> } {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'loopguard-download-')));
    const file = join(dir, 'loopguard.config.yaml');
    writeFileSync(file, `run:\n  max_iterations: 1\n${lines}`);
    writeFileSync(join(dir, 'PROMPT.md'), 'Fix the bug.\n');
    return { dir, file, env: { HOME: dir, GIT_CEILING_DIRECTORIES: dirname(dir) } };
  }

  it('its evidence_command never runs unless the user names it: nothing tells its file from theirs', async () => {
    const { dir, file, env } = download('  evidence_command: touch ran-by-the-download\n');
    const marker = join(dir, 'ran-by-the-download');
    const refused = await loopguard(dir, ['run', '--prompt-file', 'PROMPT.md', ...AGENT], env);
    expect(refused.code).toBe(EXIT_CODES.usage);
    expect(refused.stderr.trim().split('\n')).toEqual([
      `loopguard: evidence_command in ${file}, which no git repository holds (a download's file, which cannot be told from yours): loopguard runs a command a project's file names only when you name it (--evidence-command <command>, or --config <file>)`,
    ]);
    expect(existsSync(marker)).toBe(false);
    const named = await loopguard(
      dir,
      ['run', '--config', file, '--prompt-file', 'PROMPT.md', ...AGENT],
      env,
    );
    expect(named.stderr).not.toContain('no git repository');
    expect(existsSync(marker)).toBe(true);
  });

  it('its webhook and a prompt_file outside it are refused; a prompt_file inside it is read', async () => {
    const hook = download('  webhook: http://127.0.0.1:9/alerts\n');
    const webhook = await loopguard(hook.dir, ['run', '--prompt-file', 'PROMPT.md', ...AGENT], hook.env);
    expect(webhook.code).toBe(EXIT_CODES.usage);
    expect(webhook.stderr).toContain(`webhook in ${hook.file}, which no git repository holds`);
    const secret = join(realpathSync(mkdtempSync(join(tmpdir(), 'loopguard-secret-'))), 'credentials');
    writeFileSync(secret, 'aws_secret_access_key = Secret-of-the-user-62\n');
    const outside = download(`  prompt_file: ${secret}\n`);
    const refused = await loopguard(outside.dir, ['run', '--', 'sh', '-c', 'cat; exit 1'], outside.env);
    expect(refused.code).toBe(EXIT_CODES.usage);
    expect(refused.stdout + refused.stderr).not.toContain('Secret-of-the-user-62');
    const inside = download('  prompt_file: PROMPT.md\n');
    const read = await loopguard(inside.dir, ['run', ...AGENT], inside.env);
    expect(read.code, read.stderr).toBe(0);
  });
});
