import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openLoopGuardDatabase, SqliteRunStore } from '@loopguard/sqlite';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../../src/terminal/exitCodes.js';
import { bin, loopguard, stored, tempRepo } from '../runHelpers.js';
import { alive, eventually, recordedPids } from './faultHelpers.js';

const run = (...args: string[]) => ['run', '--prompt-file', 'PROMPT.md', ...args];

/** Starts `loopguard …args` in the background; resolves once the agent wrote its pid to `pids`. */
async function startLive(dir: string, args: string[]) {
  const child = execa(process.execPath, [bin, ...args], {
    cwd: dir,
    reject: false,
    stdin: 'ignore',
    env: { NO_COLOR: '1' },
  });
  const started = await eventually(() => recordedPids(join(dir, 'pids')).length > 0, 20_000);
  if (!started) throw new Error('the agent never started');
  return { child }; // not the subprocess itself: it is a promise, and returning it would await it
}

function storedRun(dir: string) {
  const database = openLoopGuardDatabase(join(dir, '.loopguard', 'state.db'), { readonly: true });
  try {
    return new SqliteRunStore({ db: database.db }).listRuns()[0];
  } finally {
    database.close();
  }
}

/** The watchdog processes started by loopguard process `pid`. */
function watchdogsOf(pid: number): number[] {
  return readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .filter((e) => {
      try {
        const cmd = readFileSync(`/proc/${e}/cmdline`, 'utf8');
        return cmd.includes('watchdog.js') && cmd.includes(`.${pid}.`);
      } catch {
        return false;
      }
    })
    .map(Number);
}

const slowAgent = 'echo $$ >> pids\necho $N >> w.txt\nsleep 30';

describe('one live run per repository', () => {
  it('a second run, a resume or a reset exits 2 naming the live run and its pid, and changes nothing', async () => {
    const { dir } = tempRepo(slowAgent);
    const { child: first } = await startLive(dir, run('--iteration-timeout', '60s', '--', './agent.sh'));
    const live = storedRun(dir);
    const second = await loopguard(dir, run('--', './agent.sh'));
    expect(second.code).toBe(EXIT_CODES.usage);
    expect(second.stderr.trim()).toBe(
      `loopguard: run ${live?.id} (pid ${first.pid}) is live in this repository: one live run per repository; wait for it or stop it (kill ${first.pid})`,
    );
    const resumed = await loopguard(dir, ['resume', live?.id ?? '']);
    expect(resumed.code).toBe(EXIT_CODES.usage);
    expect(resumed.stderr).toContain(`is live in this repository`);
    const reset = await loopguard(dir, ['reset', live?.id ?? '']);
    expect(reset.code).toBe(EXIT_CODES.usage);
    expect(reset.stderr.trim()).toBe(second.stderr.trim());
    expect(reset.stdout).toBe('');
    // an id that is no run here hears of the live run too, not "not found" (docs/cli.md)
    for (const command of ['reset', 'resume']) {
      const unknown = await loopguard(dir, [command, 'no-such-run']);
      expect(unknown.code).toBe(EXIT_CODES.usage);
      expect(unknown.stderr.trim()).toBe(second.stderr.trim());
    }
    const { transitions } = stored(dir);
    expect(transitions.filter((t) => t.reason.includes('manual reset'))).toEqual([]);
    expect(live?.status).toBe('running');
    first.kill('SIGTERM');
    expect((await first).exitCode).toBe(EXIT_CODES.interrupted);
    expect(recordedPids(join(dir, 'pids'))).toHaveLength(1);
  });

  it('a run whose loopguard was SIGKILLed is interrupted; resume (its watchdog killed too) ends what is left of its agent, says so, and continues', async () => {
    const { dir } = tempRepo('echo $$ >> pids\necho $N >> w.txt\nif [ $N -eq 1 ]; then sleep 30; fi');
    const { child: first } = await startLive(
      dir,
      run('--iteration-timeout', '60s', '--max-iterations', '2', '--', './agent.sh'),
    );
    for (const pid of watchdogsOf(first.pid ?? 0)) process.kill(pid, 'SIGKILL');
    first.kill('SIGKILL');
    await first;
    const runs = await loopguard(dir, ['runs', '--json']);
    const listed = JSON.parse(runs.stdout.trim().split('\n')[0] ?? '{}');
    expect(listed).toMatchObject({ status: 'interrupted' });
    expect(listed.reason).toMatch(/loopguard process is gone/);
    expect(storedRun(dir)?.status).toBe('interrupted');
    const [agentPid] = recordedPids(join(dir, 'pids'));
    // the watchdog was killed too, so the agent is still there when resume starts
    expect(alive(agentPid ?? 0)).toBe(true);
    const resumed = await loopguard(dir, ['resume', listed.id], {});
    expect(resumed.stderr).toMatch(
      new RegExp(
        `run ${listed.id}: ended [1-9]\\d* process\\(es\\) left by its previous agent \\(.*${agentPid}`,
      ),
    );
    expect(alive(agentPid ?? 0)).toBe(false);
    expect(resumed.stderr).toContain('iteration 1/2');
    expect(resumed.code).toBe(EXIT_CODES.budgetSpent);
  }, 120_000);

  it("resume starts no agent while the previous watchdog still runs (it outlives a child loopguard forked but had not exec'd): exit 2 naming it; once it has ended, resume continues", async () => {
    const { dir } = tempRepo('echo $$ >> pids\necho $N >> w.txt\nif [ $N -eq 1 ]; then sleep 30; fi');
    const { child: first } = await startLive(
      dir,
      run('--iteration-timeout', '60s', '--max-iterations', '2', '--', './agent.sh'),
    );
    // a stopped watchdog stands for one still waiting on such a child: it has not swept yet
    const [watchdog] = watchdogsOf(first.pid ?? 0);
    expect(watchdog).toBeDefined();
    process.kill(watchdog ?? 0, 'SIGSTOP');
    let id = '';
    try {
      first.kill('SIGKILL');
      await first;
      const runs = await loopguard(dir, ['runs', '--json']);
      id = JSON.parse(runs.stdout.trim().split('\n')[0] ?? '{}').id;
      const refused = await loopguard(dir, ['resume', id], {});
      expect(refused.code).toBe(EXIT_CODES.usage);
      expect(refused.stderr).toMatch(
        new RegExp(`run ${id}: its previous agent is not gone .*${watchdog}.*nothing was started`),
      );
      expect(readFileSync(join(dir, 'w.txt'), 'utf8')).toBe('1\n'); // no second agent
    } finally {
      process.kill(watchdog ?? 0, 'SIGCONT'); // a failed check must not leave it stopped
    }
    expect(await eventually(() => !alive(watchdog ?? 0), 20_000)).toBe(true);
    const resumed = await loopguard(dir, ['resume', id], {});
    expect(resumed.stderr).toContain('iteration 1/2');
    expect(resumed.code).toBe(EXIT_CODES.budgetSpent);
    expect(readFileSync(join(dir, 'w.txt'), 'utf8')).toMatch(/^1\n2\n/);
  }, 120_000);
});
