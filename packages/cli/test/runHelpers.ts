import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openLoopGuardDatabase, SqliteRunStore } from '@loopguard/sqlite';
import { execa } from 'execa';

/** The built `loopguard` binary. */
export const bin = fileURLToPath(new URL('../dist/bin.js', import.meta.url));

/** A temporary git repository with one commit, a prompt file and an agent script. */
export function tempRepo(agent: string, { git = true } = {}): { dir: string; counter: string } {
  const dir = mkdtempSync(join(tmpdir(), 'loopguard-run-'));
  const counter = join(dir, '..', `${dir.split('/').pop()}.count`);
  writeFileSync(counter, '0');
  writeFileSync(join(dir, 'PROMPT.md'), 'Fix the bug.\n');
  writeFileSync(join(dir, 'README.md'), '# project\n');
  // every agent script knows its call number as $N
  writeFileSync(
    join(dir, 'agent.sh'),
    `#!/bin/sh\nN=$(( $(cat ${counter}) + 1 ))\necho $N > ${counter}\ncat > /dev/null\n${agent}\n`,
  );
  chmodSync(join(dir, 'agent.sh'), 0o755);
  if (git) {
    const run = (...args: string[]) => execFileSync('git', args, { cwd: dir });
    run('init', '-q');
    run('config', 'user.email', 'agent@example.com');
    run('config', 'user.name', 'agent');
    run('add', '.');
    run('commit', '-qm', 'init');
  }
  return { dir, counter };
}

let scratchHome: string | undefined;

/**
 * Runs `loopguard …args` in `cwd` (no terminal); resolves with its exit code and output. `init`
 * and `uninstall` also write the user's files (`~/.claude.json`, `~/.loopguard/installs.json`):
 * they get a temporary HOME unless `env` names one, so that no test touches the real one.
 */
export async function loopguard(cwd: string, args: string[], env: Record<string, string> = {}) {
  const userFiles = args[0] === 'init' || args[0] === 'uninstall';
  if (userFiles && scratchHome === undefined) scratchHome = mkdtempSync(join(tmpdir(), 'loopguard-home-'));
  // init and uninstall write the user's files: under a scratch HOME, the CLIs' own variables unset
  const { CLAUDE_CONFIG_DIR, GEMINI_CLI_HOME, CODEX_HOME, ...inherited } = process.env;
  const result = await execa(process.execPath, [bin, ...args], {
    cwd,
    reject: false,
    stdin: 'ignore',
    extendEnv: false,
    env: {
      ...(userFiles ? { ...inherited, HOME: scratchHome as string } : process.env),
      NO_COLOR: '1',
      ...env,
    },
  });
  return { code: result.exitCode, stdout: String(result.stdout), stderr: String(result.stderr) };
}

/** The runs, transitions and iterations stored in `<cwd>/.loopguard/state.db`. */
export function stored(cwd: string) {
  const database = openLoopGuardDatabase(join(cwd, '.loopguard', 'state.db'));
  const runs = new SqliteRunStore({ db: database.db });
  const [run] = runs.listRuns();
  if (run === undefined) throw new Error('no run stored');
  const result = { run, transitions: runs.transitions(run.id), iterations: runs.iterations(run.id) };
  database.close();
  return result;
}

/** Reads one iteration artifact as JSON. */
export function artifact(
  cwd: string,
  runId: string,
  iteration: number,
  file: string,
): Record<string, unknown> {
  return JSON.parse(
    readFileSync(join(cwd, '.loopguard', 'runs', runId, 'iterations', String(iteration), file), 'utf8'),
  );
}
