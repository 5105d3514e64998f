import { readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../../src/terminal/exitCodes.js';
import { artifact, bin, loopguard, stored, tempRepo } from '../runHelpers.js';
import { alive, eventually, recordedPids } from './faultHelpers.js';

const run = (...args: string[]) => ['run', '--prompt-file', 'PROMPT.md', ...args];

// Every agent process appends its pid to `pids`: the shell, a plain background job and a daemon
// that left the process group and session (setsid) while keeping stdout open. Before starting, it
// notes any agent process of an earlier start that is still alive (a double agent).
const treeAgent = `for p in $(cat pids 2>/dev/null); do kill -0 $p 2>/dev/null && ! grep -q '^[^ ]* [^ ]* Z' /proc/$p/stat 2>/dev/null && echo "$p" >> doubles; done
echo $$ >> pids
setsid sleep 120 &
echo $! >> pids
sleep 120 &
echo $! >> pids
echo $N >> w.txt
sleep 120`;

describe('no orphans, no hangs', () => {
  it('a setsid daemon holding stdout open does not hold the iteration past its timeout, and is ended with the tree', async () => {
    const { dir } = tempRepo(
      "setsid sh -c 'echo $$ >> pids; touch daemon.$0; exec sleep 120' $N &\nuntil [ -f daemon.$N ]; do sleep 0.05; done\necho $$ >> pids\necho started",
    );
    const result = await loopguard(
      dir,
      run('--iteration-timeout', '3s', '--max-iterations', '2', '--', './agent.sh'),
    );
    expect(result.code).toBe(EXIT_CODES.budgetSpent);
    expect(result.stderr).not.toContain('killed at the'); // each iteration ended when the agent exited
    const pids = recordedPids(join(dir, 'pids'));
    // each iteration records the daemon, then the agent; when one is missing, say how each agent
    // ended (an exit status, or a signal nobody in this run sent) and what the run printed
    const { run: r } = stored(dir);
    const ends = [1, 2].map((n) => {
      const { exitCode, signal, timedOut } = artifact(dir, r.id, n, 'metrics.json');
      return { iteration: n, exitCode, signal, timedOut };
    });
    expect(pids.length, JSON.stringify({ pids, ends, stderr: result.stderr })).toBe(4);
    expect(pids.filter(alive)).toEqual([]);
  });

  it('at the iteration timeout the whole tree is ended, daemons included', async () => {
    const { dir } = tempRepo(treeAgent);
    const result = await loopguard(
      dir,
      run('--iteration-timeout', '1s', '--max-iterations', '1', '--', './agent.sh'),
    );
    expect(result.stderr).toContain('killed at the 1s timeout');
    expect(recordedPids(join(dir, 'pids')).filter(alive)).toEqual([]);
  });

  it('SIGKILL of loopguard at random points in 20 runs: no agent process survives, resume never starts a second agent', async () => {
    const trials = 20;
    let survivors = 0;
    let doubles = 0;
    const figures: string[] = [];
    const trial = async (i: number) => {
      const { dir } = tempRepo(treeAgent);
      const killAfter = 200 + Math.floor(Math.random() * 2300);
      const child = execa(
        process.execPath,
        [bin, ...run('--iteration-timeout', '60s', '--max-iterations', '1', '--', './agent.sh')],
        {
          cwd: dir,
          reject: false,
          stdin: 'ignore',
        },
      );
      await new Promise((r) => setTimeout(r, killAfter));
      child.kill('SIGKILL');
      await child;
      const pidsFile = join(dir, 'pids');
      // the resumed agent ends at once: its last line (tempRepo ends the script with a newline); written
      // beside and renamed over, as a killed agent's shell may still be running the file (ETXTBSY)
      const script = join(dir, 'agent.sh');
      writeFileSync(`${script}.next`, readFileSync(script, 'utf8').replace(/^sleep 120$/m, 'true'), {
        mode: statSync(script).mode,
      });
      renameSync(`${script}.next`, script);
      const resume = async () => {
        const runs = await loopguard(dir, ['runs', '--json']);
        const listed =
          runs.stdout.trim() === '' ? null : JSON.parse(runs.stdout.trim().split('\n')[0] ?? '{}');
        if (listed === null) return; // killed before the run was created
        const resumed = await loopguard(dir, ['resume', listed.id]);
        expect([EXIT_CODES.ok, EXIT_CODES.budgetSpent], resumed.stderr).toContain(resumed.code);
      };
      // odd trials resume at once, racing the watchdog; even ones first wait for the tree to be gone
      if (i % 2 === 1) await resume();
      // "a few seconds": the watchdog sweeps at once; 5 s is the bound asked of it
      await eventually(() => recordedPids(pidsFile).filter(alive).length === 0, 5000);
      const left = recordedPids(pidsFile).filter(alive);
      survivors += left.length;
      if (i % 2 === 0) await resume();
      const doubled = (() => {
        try {
          return readFileSync(join(dir, 'doubles'), 'utf8').trim().split('\n').length;
        } catch {
          return 0;
        }
      })();
      doubles += doubled;
      for (const pid of recordedPids(pidsFile).filter(alive)) process.kill(pid, 'SIGKILL');
      figures.push(
        `trial ${i}: killed after ${killAfter} ms, ${left.length} survivors, ${doubled} double agents`,
      );
    };
    for (let i = 0; i < trials; i += 4) await Promise.all([0, 1, 2, 3].map((k) => trial(i + k)));
    console.log(
      `SIGKILL trial: ${trials} runs, ${survivors} surviving agent processes, ${doubles} double agents\n${figures.join('\n')}`,
    );
    expect({ survivors, doubles }).toEqual({ survivors: 0, doubles: 0 });
  }, 900_000); // 20 runs: about 20 s on an idle machine, a few minutes on a loaded one
});
