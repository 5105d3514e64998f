import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../src/terminal/exitCodes.js';
import { artifact, bin, loopguard, stored, tempRepo } from './runHelpers.js';

const run = (...args: string[]) => ['run', '--prompt-file', 'PROMPT.md', ...args];
const transitions = (cwd: string) => stored(cwd).transitions.map((t) => `${t.from}->${t.to}`);

describe('loopguard run: stagnation end to end (fake agents in temporary git repositories)', () => {
  it('an agent that changes nothing trips the breaker at the threshold, goes HALF_OPEN after a cooldown of 0 and closes on progress', async () => {
    const { dir } = tempRepo('echo working\nif [ $N -ge 4 ]; then echo $N > progress.txt; fi');
    const result = await loopguard(
      dir,
      run('--on-stagnation', 'alert', '--cooldown', '0', '--max-iterations', '5', '--', './agent.sh'),
    );
    expect(result.code).toBe(EXIT_CODES.budgetSpent);
    const { run: stored_, iterations } = stored(dir);
    expect(transitions(dir)).toEqual(['CLOSED->OPEN', 'OPEN->HALF_OPEN', 'HALF_OPEN->CLOSED']);
    expect(iterations.map((i) => i.progress)).toEqual([
      'stalled',
      'stalled',
      'stalled',
      'progress',
      'progress',
    ]);
    expect(stored_).toMatchObject({
      status: 'budget_spent',
      iteration: 5,
      breakerState: 'CLOSED',
      exitCode: 5,
    });
    expect(result.stderr).toContain('breaker CLOSED -> OPEN: no files changed (3 in a row, threshold 3)');
    expect(
      readFileSync(join(dir, '.loopguard', 'runs', stored_.id, 'iterations', '4', 'changes.patch'), 'utf8'),
    ).toContain('+4');
  });

  it('honours --stagnation-threshold and aborts with exit code 4 on --on-stagnation abort', async () => {
    const { dir } = tempRepo('echo nothing');
    const result = await loopguard(
      dir,
      run('--stagnation-threshold', '2', '--on-stagnation', 'abort', '--', './agent.sh'),
    );
    expect(result.code).toBe(EXIT_CODES.aborted);
    expect(stored(dir).run).toMatchObject({ status: 'aborted', iteration: 2, breakerState: 'OPEN' });
    // polish65: the breaker's signals in words, as status says them, in run's lines and runs' REASON;
    // --json keeps the names
    expect(result.stderr).toContain('exit 0 · no files changed 1/2');
    expect(result.stderr).toContain('[STAGNATION DETECTED] no files changed (2 in a row, threshold 2)');
    expect(result.stderr).not.toMatch(/no_file_changes|step_loop_stopped/);
    const runs = await loopguard(dir, ['runs']);
    expect(runs.stdout).toMatch(/aborted .*no files changed \(2 in a row, threshold 2\)/);
    expect(runs.stdout).not.toContain('no_file_changes');
    const json = await loopguard(dir, ['runs', '--json']);
    expect(JSON.parse(json.stdout).reason).toContain('no_file_changes: no files changed');
  });

  it('an agent that commits its work every iteration never trips', async () => {
    const { dir } = tempRepo(
      'echo "step $N" >> work.txt\ngit add work.txt && git commit -qm "step $N"\necho Done.',
    );
    const result = await loopguard(
      dir,
      run('--stagnation-threshold', '1', '--max-iterations', '6', '--', './agent.sh'),
    );
    expect(result.code).toBe(EXIT_CODES.budgetSpent);
    expect(transitions(dir)).toEqual([]);
    expect(stored(dir).iterations.every((i) => i.progress === 'progress')).toBe(true);
  });

  it('the same error repeated (varying line numbers and timestamps) trips at 5, even while files change', async () => {
    const { dir } = tempRepo(
      'echo "edit $N" >> attempt.txt\necho "[2026-11-22T04:0$N:1$N.12$((N))Z] TypeError: Cannot read properties of undefined (reading \'id\')"\necho "    at login (src/auth.ts:$((40 + N)):7)"',
    );
    const result = await loopguard(
      dir,
      run('--on-stagnation', 'abort', '--max-iterations', '9', '--', './agent.sh'),
    );
    expect(result.code).toBe(EXIT_CODES.aborted);
    const { run: r } = stored(dir);
    expect(r.iteration).toBe(5);
    expect(r.reason).toContain('same_error');
    expect(artifact(dir, r.id, 5, 'errors.json')).toMatchObject({
      kind: 'failure',
      errorType: 'TypeError',
      location: 'src/auth.ts',
    });
  });

  it('an agent that prints a fake 429 waits with back-off and does not trip', async () => {
    const { dir } = tempRepo(
      'if [ $N -le 3 ]; then echo "calling the API"; echo "Error: 429 Too Many Requests" >&2; exit 1; fi\necho fixed > fix.txt\necho "<promise>COMPLETE</promise>"',
    );
    const result = await loopguard(
      dir,
      run('--stagnation-threshold', '1', '--backoff', '10ms', '--', './agent.sh'),
    );
    expect(result.code).toBe(EXIT_CODES.ok);
    expect(result.stderr).toContain('rate limit (not counted as stagnation): waiting');
    expect(transitions(dir)).toEqual([]);
    expect(stored(dir).iterations.map((i) => i.progress)).toEqual([
      'infrastructure',
      'infrastructure',
      'infrastructure',
      'progress',
    ]);
  });

  it('judges infrastructure from the last lines only: an echoed file that mentions a rate limit is not a rate limit', async () => {
    const { dir } = tempRepo(
      'echo "docs: Error: rate limit exceeded means a 5-hour limit"\nfor i in $(seq 1 25); do echo "line $i"; done',
    );
    const result = await loopguard(
      dir,
      run('--stagnation-threshold', '1', '--on-stagnation', 'abort', '--', './agent.sh'),
    );
    expect(result.code).toBe(EXIT_CODES.aborted);
    expect(stored(dir).iterations[0]?.progress).toBe('stalled');
  });

  it('catches completion claimed while the evidence command fails, and completes with exit 0 once it passes', async () => {
    const { dir } = tempRepo(
      'echo "try $N" >> work.txt\nif [ $N -ge 4 ]; then touch done.flag; fi\necho "All done! <promise>COMPLETE</promise>"',
    );
    const result = await loopguard(
      dir,
      run('--evidence-command', 'test -f done.flag', '--on-stagnation', 'alert', '--', './agent.sh'),
    );
    expect(result.code).toBe(EXIT_CODES.ok);
    const { run: r, iterations } = stored(dir);
    expect(r).toMatchObject({ status: 'completed', iteration: 4 });
    expect(transitions(dir)[0]).toBe('CLOSED->OPEN');
    expect(r.reason).toBe('completion claimed with evidence');
    expect(iterations).toHaveLength(4);
    expect(artifact(dir, r.id, 3, 'completion_signals.json')).toMatchObject({
      claimed: true,
      verified: false,
      evidenceExitCode: 1,
      evidenceProblems: ['evidence command "test -f done.flag" exited 1'],
    });
    expect(artifact(dir, r.id, 4, 'completion_signals.json')).toMatchObject({
      claimed: true,
      verified: true,
    });
  });

  it('a missing --require-file makes a claim unverified', async () => {
    const { dir } = tempRepo('echo x >> w.txt\necho "<promise>COMPLETE</promise>"');
    const result = await loopguard(
      dir,
      run('--require-file', 'dist/app.js', '--on-stagnation', 'abort', '--', './agent.sh'),
    );
    expect(result.code).toBe(EXIT_CODES.aborted);
    expect(stored(dir).run.reason).toContain('required file dist/app.js is missing');
  });

  it('pauses without a terminal (exit 3), then resume continues at the right iteration with its breaker state', async () => {
    const { dir } = tempRepo(
      'echo "call $N"\nif [ $N -ge 4 ]; then echo ok > fixed.txt; echo "<promise>COMPLETE</promise>"; fi',
    );
    const first = await loopguard(dir, run('--cooldown', '0', '--', './agent.sh'));
    expect(first.code).toBe(EXIT_CODES.paused);
    const paused = stored(dir).run;
    expect(paused).toMatchObject({ status: 'paused', iteration: 3, exitCode: 3 });
    expect(first.stderr).toContain(`loopguard resume ${paused.id}`);
    const resumed = await loopguard(dir, ['resume', paused.id]);
    expect(resumed.code).toBe(EXIT_CODES.ok);
    expect(resumed.stderr).toContain(`resumed at iteration 4`);
    const after = stored(dir);
    expect(after.run).toMatchObject({ status: 'completed', iteration: 4 });
    expect(after.iterations.map((i) => i.iteration)).toEqual([1, 2, 3, 4]);
    expect(after.transitions.map((t) => `${t.from}->${t.to}`)).toEqual([
      'CLOSED->OPEN',
      'OPEN->HALF_OPEN',
      'HALF_OPEN->CLOSED',
    ]);
  });

  it('reset closes an OPEN breaker by hand, runs lists the run', async () => {
    const { dir } = tempRepo('echo nothing');
    expect((await loopguard(dir, run('--', './agent.sh'))).code).toBe(EXIT_CODES.paused);
    const { run: r } = stored(dir);
    expect(r.breakerState).toBe('OPEN');
    const reset = await loopguard(dir, ['reset', r.id]);
    expect(reset).toMatchObject({ code: 0 });
    expect(reset.stdout).toContain('breaker OPEN -> CLOSED (opened 1 time(s) so far)');
    const after = stored(dir);
    expect(after.run.breakerState).toBe('CLOSED');
    expect(after.transitions.at(-1)).toMatchObject({
      from: 'OPEN',
      to: 'CLOSED',
      reason: 'manual reset (loopguard reset)',
    });
    const list = await loopguard(dir, ['runs', '--json']);
    expect(JSON.parse(list.stdout.trim())).toMatchObject({
      id: r.id,
      status: 'paused',
      iteration: 3,
      breaker: 'CLOSED',
      opens: 1,
    });
    expect((await loopguard(dir, ['reset', 'nope'])).code).toBe(EXIT_CODES.usage);
  });

  it('posts the webhook to a local HTTP server when the breaker opens (alert)', async () => {
    const received: unknown[] = [];
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => {
        received.push({ method: req.method, type: req.headers['content-type'], body: JSON.parse(body) });
        res.end('ok');
      });
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const { port } = server.address() as { port: number };
    try {
      const { dir } = tempRepo('echo "Error: build failed"');
      const result = await loopguard(
        dir,
        run(
          '--on-stagnation',
          'alert',
          '--webhook',
          // a webhook's URL holds its secret (Slack's, Discord's): never in the run's output (trust54)
          `http://127.0.0.1:${port}/hook/T0/B0/Secret-of-the-hook-54`,
          '--max-iterations',
          '3',
          '--',
          './agent.sh',
        ),
      );
      expect(result.code).toBe(EXIT_CODES.budgetSpent);
      expect(result.stdout + result.stderr).toContain(`webhook posted to http://127.0.0.1:${port}/… (`);
      expect(result.stdout + result.stderr).not.toContain('Secret-of-the-hook-54');
      // but `ps` shows it to every local user: said, as serve's --token is (polish61)
      expect(result.stderr).toContain(
        'loopguard: warning: --webhook is in the process list (ps), where every local user can read its URL',
      );
      const { run: r } = stored(dir);
      expect(received).toEqual([
        {
          method: 'POST',
          type: 'application/json',
          body: {
            run: r.id,
            iteration: 3,
            reason: expect.stringContaining('no_file_changes'),
            lastError: 'Error: build failed',
            task: null,
            action: 'alert',
          },
        },
      ]);
    } finally {
      server.close();
    }
  });

  it('a webhook from a configuration file is in no process list: no warning, and it is posted (polish61)', async () => {
    const received: string[] = [];
    const server = createServer((req, res) => {
      received.push(req.url ?? '');
      req.resume().on('end', () => res.end('ok'));
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const { port } = server.address() as { port: number };
    try {
      const { dir } = tempRepo('echo "Error: build failed"');
      const file = join(mkdtempSync(join(tmpdir(), 'loopguard-webhook-')), 'run.yaml');
      writeFileSync(file, `webhook: http://127.0.0.1:${port}/hook/Secret-61\n`, { mode: 0o600 });
      const result = await loopguard(
        dir,
        run('--config', file, '--on-stagnation', 'alert', '--max-iterations', '3', '--', './agent.sh'),
      );
      expect(result.code, result.stderr).toBe(EXIT_CODES.budgetSpent);
      expect(result.stderr).not.toContain('process list');
      expect(received).toEqual(['/hook/Secret-61']);
    } finally {
      server.close();
    }
  });

  it("trust46: the desktop notification's arguments (which every local user reads in ps) hold none of the agent's output", async () => {
    // the agent changes a file every time, and fails the same way, naming a key in its error
    const { dir } = tempRepo('echo $N > work.txt\necho "Error: 401 Unauthorized for key sk-SECRET46"');
    const bin = mkdtempSync(join(tmpdir(), 'loopguard-notify-'));
    const argv = join(bin, 'argv.txt');
    writeFileSync(join(bin, 'notify-send'), `#!/bin/sh\nprintf '%s\\n' "$@" >> ${argv}\n`, { mode: 0o755 });
    const result = await loopguard(
      dir,
      run(
        '--on-stagnation',
        'alert',
        '--same-error-threshold',
        '2',
        '--max-iterations',
        '3',
        '--',
        './agent.sh',
      ),
      { DISPLAY: ':46', PATH: `${bin}:${process.env.PATH}` },
    );
    expect(result.code).toBe(EXIT_CODES.budgetSpent);
    expect(result.stderr).toContain('sk-SECRET46'); // the user's terminal says why, as before
    const shown = readFileSync(argv, 'utf8');
    expect(shown).toContain('loopguard: stagnation detected');
    expect(shown).not.toContain('SECRET46');
  });

  it('kills a hanging agent and its process group at the iteration timeout, leaving no orphan', async () => {
    const { dir } = tempRepo('sleep 300 &\necho $! > bg.pid\necho $$ > fg.pid\nsleep 300');
    const result = await loopguard(
      dir,
      run('--iteration-timeout', '500ms', '--max-iterations', '1', '--', './agent.sh'),
    );
    expect(result.code).toBe(EXIT_CODES.budgetSpent);
    // a killed process may linger as a zombie until PID 1 reaps it: that is not an orphan
    const alive = (pid: number) => {
      try {
        return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
      } catch {
        return false;
      }
    };
    for (const file of ['bg.pid', 'fg.pid'])
      expect(alive(Number(readFileSync(join(dir, file), 'utf8')))).toBe(false);
    const { run: r } = stored(dir);
    expect(artifact(dir, r.id, 1, 'metrics.json')).toMatchObject({
      timedOut: true,
      exitCode: null,
      signal: 'SIGTERM',
    });
    expect(result.stderr).toContain('killed at the 500ms timeout');
  });

  it('a corrupt state file starts CLOSED with a warning', async () => {
    const { dir } = tempRepo('echo x >> w.txt\necho "<promise>COMPLETE</promise>"');
    await loopguard(dir, run('--', './agent.sh'));
    writeFileSync(join(dir, '.loopguard', 'state.db'), 'this is not a database');
    const result = await loopguard(dir, run('--', './agent.sh'));
    expect(result.code).toBe(EXIT_CODES.ok);
    expect(result.stderr).toMatch(/warning: state file .* is corrupt .* every breaker starts CLOSED/);
    expect(stored(dir).run.breakerState).toBe('CLOSED');
  });

  it('a corrupt persisted breaker state of a run starts CLOSED and says so on resume', async () => {
    const { dir } = tempRepo('echo nothing');
    await loopguard(dir, run('--stagnation-threshold', '1', '--', './agent.sh'));
    const { openLoopGuardDatabase } = await import('@loopguard/sqlite');
    const db = openLoopGuardDatabase(join(dir, '.loopguard', 'state.db'));
    db.db.prepare('UPDATE runs SET breaker = \'{"state":"BROKEN"}\'').run();
    db.close();
    const { run: r } = stored(dir);
    const result = await loopguard(dir, ['resume', r.id, '--json']);
    const events = result.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(events.find((e) => e.event === 'warning')?.message).toMatch(/corrupt.*starting CLOSED/);
    expect(events.find((e) => e.event === 'run_started')).toMatchObject({ breaker: 'CLOSED', iteration: 2 });
  });

  it('--json emits one valid JSON object per line on stdout', async () => {
    const { dir } = tempRepo('echo "agent says hi"\necho x >> w.txt');
    const result = await loopguard(dir, run('--json', '--max-iterations', '2', '--', './agent.sh'));
    expect(result.code).toBe(EXIT_CODES.budgetSpent);
    const lines = result.stdout.trim().split('\n');
    const events = lines.map((line) => JSON.parse(line) as { event: string });
    expect(events.map((e) => e.event)).toEqual([
      'run_started',
      'iteration_started',
      'iteration_finished',
      'iteration_started',
      'iteration_finished',
      'run_finished',
    ]);
    expect(events.at(-1)).toMatchObject({ status: 'budget_spent', exitCode: 5 });
    expect(result.stderr).toContain('agent says hi');
    // its iterations ran out, no budget in dollars was set: status says loopguard stopped it, exit 10 (qa54)
    const runId = (events[0] as { event: string; run?: string }).run ?? '';
    const status = await loopguard(dir, ['status', '--session', runId, '--json']);
    expect(status.code, status.stderr).toBe(EXIT_CODES.sessionStopped);
    expect(JSON.parse(status.stdout)).toMatchObject({
      verdict: 'stopped',
      summary: 'stopped by loopguard (run reached its iteration limit of 2)',
    });
    // its last line says the same, not "budget spent" (no budget was set: polish62)
    expect(result.stderr).toContain(`run ${runId} ended: reached its iteration limit of 2 (exit code 5)`);
  });

  it("qa64: the display's line for a run that reached its limit says it in words, not the stored status's name", async () => {
    const { dir } = tempRepo('echo x >> w.txt');
    const result = await loopguard(dir, run('--max-iterations', '1', '--', './agent.sh'));
    expect(result.code).toBe(EXIT_CODES.budgetSpent);
    expect(result.stderr).not.toContain('budget_spent');
    expect(result.stderr).toMatch(
      /^\[loopguard\] run \S+ limit reached: Iteration 2 exceeds maximum of 1\./m,
    );
  });

  it('outside a git repository the file signal is unavailable, never "no progress"', async () => {
    const { dir } = tempRepo('echo "step $N"', { git: false });
    const result = await loopguard(
      dir,
      run('--stagnation-threshold', '1', '--max-iterations', '4', '--', './agent.sh'),
    );
    expect(result.code).toBe(EXIT_CODES.budgetSpent);
    expect(result.stderr).toContain('not a git repository');
    expect(transitions(dir)).toEqual([]);
    for (const iteration of stored(dir).iterations) {
      expect(iteration.signals).toContainEqual(
        expect.objectContaining({ signal: 'no_file_changes', status: 'unavailable' }),
      );
    }
  });

  it('escalates through --model-progression with the failure context, then pauses when the last model stalls', async () => {
    const { dir, counter } = tempRepo('');
    writeFileSync(
      join(dir, 'agent.sh'),
      `#!/bin/sh\nN=$(( $(cat ${counter}) + 1 ))\necho $N > ${counter}\necho "$1" >> ${counter}.models\ncat > ${counter}.prompt.$N\necho thinking\n`,
    );
    const result = await loopguard(
      dir,
      run(
        '--on-stagnation',
        'escalate',
        '--model-progression',
        'haiku,sonnet',
        '--',
        './agent.sh',
        '{model}',
      ),
    );
    expect(result.code).toBe(EXIT_CODES.paused);
    expect(readFileSync(`${counter}.models`, 'utf8').trim().split('\n')).toEqual([
      'haiku',
      'haiku',
      'haiku',
      'sonnet',
      'sonnet',
      'sonnet',
    ]);
    expect(readFileSync(`${counter}.prompt.3`, 'utf8')).toBe('Fix the bug.\n');
    expect(readFileSync(`${counter}.prompt.4`, 'utf8')).toContain('Previous attempts stalled');
    expect(result.stderr).toContain('the last model also stalled: pausing');
  });

  it('tracks the task of a --plan file: a checked item is progress, a stuck task trips', async () => {
    const { dir } = tempRepo(
      'if [ $N -eq 1 ]; then sed -i "s/- \\[ \\] first/- [x] first/" plan.md; fi\necho "t $N" >> w.txt',
    );
    writeFileSync(join(dir, 'plan.md'), '# Plan\n- [ ] first\n- [ ] second\n');
    const result = await loopguard(
      dir,
      run('--plan', 'plan.md', '--task-threshold', '2', '--on-stagnation', 'abort', '--', './agent.sh'),
    );
    expect(result.code).toBe(EXIT_CODES.aborted);
    const { run: r, iterations } = stored(dir);
    expect(iterations).toHaveLength(3);
    expect(r.reason).toContain('task second blocked: task_not_progressing');
    expect(result.stderr).not.toContain('--plan');
  });
  it('qa53: says so when the --plan file is not there (a mistyped name ran with no task, unsaid)', async () => {
    const { dir } = tempRepo('echo x >> w.txt');
    const result = await loopguard(
      dir,
      run('--plan', 'fix_plan.md', '--max-iterations', '1', '--', './agent.sh'),
    );
    expect(result.stderr).toContain(
      'loopguard: warning: --plan fix_plan.md: no such file (yet): the run has no task until it exists\n',
    );
    expect(result.code).toBe(EXIT_CODES.budgetSpent);
  });
  it('records each iteration as an attempt in the seed-002 LoopDetector: a finished task revisited again and again trips', async () => {
    // the agent checks "first" when it is open, and un-checks it (breaking finished work) otherwise
    const { dir } = tempRepo(
      'if grep -q "\\- \\[ \\] first" plan.md; then sed -i "s/- \\[ \\] first/- [x] first/" plan.md; else sed -i "s/- \\[x\\] first/- [ ] first/" plan.md; fi',
    );
    writeFileSync(join(dir, 'plan.md'), '# Plan\n- [ ] first\n- [ ] second\n');
    const result = await loopguard(
      dir,
      run('--plan', 'plan.md', '--on-stagnation', 'abort', '--max-iterations', '9', '--', './agent.sh'),
    );
    expect(result.code).toBe(EXIT_CODES.aborted);
    const { run: r, iterations } = stored(dir);
    expect(iterations).toHaveLength(5);
    expect(r.reason).toContain('loop_detector: completed_task_revisit on task first (3 attempts');
  });
});

describe('loopguard run: options and configuration', () => {
  it('reads loopguard.config.yaml, flags override it', async () => {
    const { dir } = tempRepo('echo x >> w.txt');
    writeFileSync(join(dir, 'loopguard.config.yaml'), 'max_iterations: 2\n');
    expect((await loopguard(dir, run('--', './agent.sh'))).code).toBe(EXIT_CODES.budgetSpent);
    expect(stored(dir).run.iteration).toBe(2);
    const { dir: other } = tempRepo('echo x >> w.txt');
    writeFileSync(join(other, 'loopguard.config.yaml'), 'max_iterations: 2\n');
    await loopguard(other, run('--max-iterations', '3', '--', './agent.sh'));
    expect(stored(other).run.iteration).toBe(3);
  });

  it('a bad value is exit 2 naming the key, and nothing runs', async () => {
    const { dir } = tempRepo('echo x');
    writeFileSync(join(dir, 'loopguard.config.json'), JSON.stringify({ stagnationThreshold: 0 }));
    const bad = await loopguard(dir, run('--', './agent.sh'));
    expect(bad.code).toBe(EXIT_CODES.usage);
    expect(bad.stderr).toMatch(
      /^loopguard: stagnationThreshold \(in .*loopguard.config.json\) must be an integer ≥ 1 \(got number 0\)$/,
    );
    expect(existsSync(join(dir, '.loopguard'))).toBe(false);
    rmSync(join(dir, 'loopguard.config.json'));
    const flag = await loopguard(dir, run('--max-iterations', '51', '--', './agent.sh'));
    expect(flag.stderr).toContain('--max-iterations must be an integer from 1 to 50');
    const duration = await loopguard(
      dir,
      run('--max-iterations', '2', '--cooldown', 'soon', '--', './agent.sh'),
    );
    expect(duration.stderr).toContain('--cooldown must be a duration');
    const action = await loopguard(dir, run('--on-stagnation', 'panic', '--', './agent.sh'));
    expect(action.code).toBe(EXIT_CODES.usage);
    expect(action.stderr).toContain("argument 'panic' is invalid");
  });

  // sessions60: started by a process that leaves its stdin an open pipe (a CI step, an editor's task,
  // another agent's tool call), `run` waited for its end forever, without a word; Claude Code goes on
  // after 3 s without data, and says so
  it('goes on without a prompt when stdin is a pipe nobody writes nor closes, and says so; a prompt that comes slowly is read whole', async () => {
    const { dir } = tempRepo('cat "$0" > /dev/null');
    const args = [bin, 'run', '--max-iterations', '1', '--', './agent.sh'];
    const open = spawn(process.execPath, args, {
      cwd: dir,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1' },
    });
    let err = '';
    open.stderr.on('data', (chunk) => {
      err += String(chunk);
    });
    // before the fix it waited forever: ended, so that the test fails rather than hangs
    const guard = setTimeout(() => open.kill(), 30_000);
    const code = await new Promise((done) => open.on('exit', done));
    clearTimeout(guard);
    open.stdin.destroy();
    expect(code).toBe(EXIT_CODES.budgetSpent);
    expect(err).toContain(
      "loopguard: warning: no prompt on stdin after 3 s (a pipe nobody closed): the run goes on without one, the agent's stdin gets nothing each iteration (pipe the prompt, or give --prompt-file PATH; < /dev/null when the command carries its own)\n",
    );
    expect(err).not.toContain('stdin held no prompt');
    // its first line at once, the rest after the 3 s: the whole prompt
    const second = tempRepo('cat "$0" > /dev/null').dir;
    const slow = spawn(process.execPath, args, {
      cwd: second,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1' },
    });
    slow.stdin.write('Fix the bug.\n');
    setTimeout(() => slow.stdin.end('Then run the tests.\n'), 3500);
    expect(await new Promise((done) => slow.on('exit', done))).toBe(EXIT_CODES.budgetSpent);
    const id = stored(second).run.id;
    expect(readFileSync(join(second, '.loopguard', 'runs', id, 'prompt.md'), 'utf8')).toBe(
      'Fix the bug.\nThen run the tests.\n',
    );
  });

  it('sessions57: says so when stdin held no prompt (a script that forgot to pipe it), not when it held one', async () => {
    const { dir } = tempRepo('true');
    const warning =
      "loopguard: warning: stdin held no prompt: the agent's stdin gets nothing each iteration (pipe the prompt, or give --prompt-file PATH; ignore this when the command carries its own)\n";
    const args = ['run', '--max-iterations', '1', '--', './agent.sh'];
    const empty = await loopguard(dir, args);
    expect(empty.stderr).toContain(warning);
    expect(empty.code).toBe(EXIT_CODES.budgetSpent);
    const piped = await execa(process.execPath, [bin, ...args], {
      cwd: dir,
      reject: false,
      input: 'fix the tests\n',
      env: { NO_COLOR: '1' },
    });
    expect(piped.exitCode).toBe(EXIT_CODES.budgetSpent);
    expect(String(piped.stderr)).not.toContain('stdin held no prompt');
  });

  it('a missing prompt file is exit 2', async () => {
    const { dir } = tempRepo('echo x');
    const result = await loopguard(dir, ['run', '--prompt-file', 'nope.md', '--', './agent.sh']);
    expect(result).toMatchObject({
      code: EXIT_CODES.usage,
      stderr: 'loopguard: --prompt-file nope.md: cannot be read (ENOENT)',
    });
  });
});

describe('loopguard run --agent-stream', () => {
  it("sessions59: the stream watcher's stop is loopguard's in every door: status's row of the run, scan of the agent's session", async () => {
    // Claude Code's stream-json, as `claude -p --output-format stream-json --verbose` prints it
    const session = 'b7e2c1d0-5a4f-4e3b-9c2d-1f0e9a8b7c6d';
    const line = (event: object) => `echo '${JSON.stringify({ ...event, session_id: session })}'`;
    const call = (n: number) => [
      line({
        type: 'assistant',
        parent_tool_use_id: null,
        message: {
          id: `msg_${n}`,
          role: 'assistant',
          model: 'claude-sonnet-4-5',
          content: [
            { type: 'tool_use', id: `toolu_${n}`, name: 'Bash', input: { command: 'cat missing.txt' } },
          ],
          usage: { input_tokens: 100, output_tokens: 12 },
        },
      }),
      line({
        type: 'user',
        parent_tool_use_id: null,
        message: {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: `toolu_${n}`,
              content: 'cat: missing.txt: No such file or directory',
              is_error: true,
            },
          ],
        },
      }),
      'sleep 0.05',
    ];
    const { dir } = tempRepo(
      [
        // its first event names the session and the folder it runs in
        `printf '{"type":"system","subtype":"init","cwd":"%s","session_id":"${session}"}\\n' "$(pwd)"`,
        ...Array.from({ length: 20 }, (_, i) => call(i + 1)).flat(),
        'sleep 300',
      ].join('\n'),
    );
    const result = await loopguard(
      dir,
      run(
        '--agent-stream',
        'claude',
        '--max-iterations',
        '1',
        '--iteration-timeout',
        '5m',
        '--',
        './agent.sh',
      ),
    );
    expect(result.stderr).toContain('stopped mid-run by the loop detector');
    const { run: r } = stored(dir);
    // status: the run's row says loopguard stopped it, at the call the agent's stream counts
    const status = await loopguard(dir, ['status', '--session', r.id, '--json']);
    expect(status.code, status.stderr).toBe(EXIT_CODES.sessionStopped);
    const told = JSON.parse(status.stdout);
    expect(told).toMatchObject({ verdict: 'stopped', stop: { topic: 'loop_stop', call: 4 }, nudges: 1 });
    expect(told.summary).toMatch(/^stopped by loopguard at call 4 of iteration 1 \(same error\)/);
    // sessions60: its entries too, in status --session and recoveries, as the summary says the call
    const lines = (await loopguard(dir, ['status', '--session', r.id])).stdout;
    expect(lines).toMatch(/ stop at call 4 of iteration 1: Stopped \(same error\)/);
    expect((await loopguard(dir, ['recoveries'])).stdout).toContain('call 4 of iteration 1');
    // scan of the agent's stream as the run kept it: loopguard stopped it, as status says
    const logs = join(dir, '.loopguard', 'runs');
    const scanned = await loopguard(dir, ['scan', logs, '--json', '--no-cache'], { HOME: dir });
    expect(scanned.code, scanned.stderr).toBe(EXIT_CODES.ok);
    const [one] = JSON.parse(scanned.stdout).sessions;
    expect(one).toMatchObject({ agent: 'claude', sessionId: session });
    expect(one.record).toMatchObject({ verdict: 'stopped', summary: told.summary });
    expect(one.recordDiffers).toBeUndefined();
    const terminal = await loopguard(dir, ['scan', logs, '--no-cache'], { HOME: dir });
    expect(terminal.stdout).toContain('loopguard stopped 1 session in a loop');
    expect(terminal.stdout).toContain('call 4 (by loopguard)');
    expect(terminal.stdout).not.toContain('would have stopped');
  });

  it('jsonl: stops an iteration mid-run through the loop detector, records the stop and counts it for the breaker', async () => {
    const step = (s: object) => `echo '${JSON.stringify(s)}'`;
    const { dir } = tempRepo(
      [
        'echo $$ > agent.pid',
        'i=0',
        'while [ $i -lt 50 ]; do',
        `  ${step({ type: 'action', tool: 'bash', input: 'pytest tests/test_parse.py' })}`,
        `  ${step({ type: 'observation', tool: 'bash', output: 'FAILED tests/test_parse.py::test_limit', error: true })}`,
        '  i=$((i + 1)); sleep 0.05',
        'done',
        'sleep 300',
      ].join('\n'),
    );
    const result = await loopguard(
      dir,
      run(
        '--agent-stream',
        'jsonl',
        '--stagnation-threshold',
        '2',
        '--on-stagnation',
        'abort',
        '--iteration-timeout',
        '5m',
        '--',
        './agent.sh',
      ),
    );
    expect(result.code).toBe(EXIT_CODES.aborted);
    const { run: r, iterations } = stored(dir);
    expect(iterations.map((i) => i.progress)).toEqual(['stopped', 'stopped']);
    expect(r.reason).toContain('step_loop_stopped: stopped mid-run by the loop detector: same_error');
    const stop = artifact(dir, r.id, 1, 'step_loop.json') as {
      action: string;
      toolCall: number;
      evidence: Array<{ action?: string }>;
    };
    expect(stop.action).toBe('stop');
    // the same failing call: nudged at the third, stopped at the fourth (said in tool calls)
    expect(stop.toolCall).toBe(4);
    expect(result.stderr).toContain('(4 repeats) at tool call 4');
    // sess68: what run prints of the stop and of its stored reason says the kind in words
    expect(result.stderr).toContain('stopped mid-run by the loop detector: same error');
    expect(result.stderr).not.toContain('same_error');
    expect(stop.evidence.some((e) => JSON.stringify(e).includes('pytest tests/test_parse.py'))).toBe(true);
    expect(artifact(dir, r.id, 1, 'metrics.json')).toMatchObject({ timedOut: false, signal: 'SIGTERM' });
    expect(result.stderr).toContain('stopped mid-run by the loop detector');
    // polish66: status and runs say the run stopped short and how to go on, in run's own words
    const hint = `(loopguard resume ${r.id} continues it)`;
    expect(result.stderr).toContain(hint);
    const status = await loopguard(dir, ['status']);
    expect(status.stdout.replace(/\s+/g, ' ')).toContain(`(same error), then the run aborted ${hint}`);
    // sess68: runs shows the stored reason back with the kind in words
    expect((await loopguard(dir, ['runs'])).stdout).toMatch(
      new RegExp(`aborted .*same error .*\\(loopguard resume ${r.id} continues it\\)`),
    );
  });
});
