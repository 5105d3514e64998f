// What Claude Code's status line costs with loopguard: `loopguard statusline` (node start-up
// included) on a session of 2,000 steps (1,000 tool calls, written through the hook's own code
// path, nudged and stopped), against `node -e ''` in the same run, calls interleaved. Claude Code
// runs the status line after every reply. Target (issue 35): ≤ 50 ms a call. Also the command
// `init` writes, node running dist/bundle/statusline.cjs itself (no bin.js).
// Run: pnpm run build && node scripts/bench-statusline.mjs [calls per variant]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const CALLS = Number(process.argv[2] ?? 40);
const STEPS = 2000;
const cli = (path) => fileURLToPath(new URL(`../packages/cli/dist/${path}`, import.meta.url));
const { guardProject } = await import(cli('hook/guardProject.js'));

const work = mkdtempSync(join(os.tmpdir(), 'loopguard-bench-statusline-'));
try {
  const dir = mkdtempSync(join(work, 'project-'));
  for (let i = 0; i < STEPS / 2; i++) {
    // 400 distinct commands, then the same failing one over and over at the end (a nudge and a stop).
    const looping = i >= STEPS / 2 - 6;
    await guardProject(
      'claude',
      {
        kind: 'after_tool',
        sessionId: 'bench-session',
        projectDir: dir,
        eventName: 'after',
        tool: 'Bash',
        input: looping ? 'npm test' : `cat src/module_${i % 400}.py`,
        output: looping ? 'Error: expected 2, got 3' : `line ${i}\n`.repeat(30),
        error: looping,
      },
      Date.now,
    );
  }
  const input = JSON.stringify({ session_id: 'bench-session', cwd: dir, model: { id: 'claude-sonnet-4-5' } });
  const variants = {
    "node -e ''": [process.execPath, ['-e', '']],
    'loopguard statusline': [process.execPath, [cli('bin.js'), 'statusline']],
    // what `init claude --status-line` writes: node runs the bundle itself
    'node statusline.cjs': [process.execPath, [cli('bundle/statusline.cjs')]],
  };
  const times = Object.fromEntries(Object.keys(variants).map((name) => [name, []]));
  // CPU of the calls (user + system, all threads) from this process's children's times, in clock
  // ticks: a figure the machine's load does not inflate the way it inflates the wall clock.
  const cpu = Object.fromEntries(Object.keys(variants).map((name) => [name, 0]));
  const childTicks = () => {
    const stat = readFileSync('/proc/self/stat', 'latin1');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[13]) + Number(fields[14]); // cutime, cstime
  };
  const lines = new Set();
  for (let round = 0; round < CALLS; round++) {
    for (const [name, [file, args]] of Object.entries(variants)) {
      const ticks = childTicks();
      const start = process.hrtime.bigint();
      const result = spawnSync(file, args, { input, encoding: 'utf8' });
      times[name].push(Number(process.hrtime.bigint() - start) / 1e6);
      cpu[name] += childTicks() - ticks;
      if (name !== "node -e ''") lines.add(result.stdout.trim());
    }
  }
  if (lines.size !== 1) throw new Error(`the variants printed different lines: ${[...lines].join(' | ')}`);
  const line = [...lines][0];
  const p = (list, q) => [...list].sort((a, b) => a - b)[Math.floor((list.length - 1) * q)];
  console.log(`status line printed: ${line}`);
  console.log(
    `${CALLS} calls each, interleaved; ${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(1)}, node ${process.version}`,
  );
  const tick = 1000 / 100; // ms a clock tick (USER_HZ is 100 on Linux)
  const cpuMs = (name) => (cpu[name] * tick) / CALLS;
  for (const [name, list] of Object.entries(times))
    console.log(
      `${name.padEnd(22)} p50 ${p(list, 0.5).toFixed(1)} ms  p90 ${p(list, 0.9).toFixed(1)} ms  CPU ${cpuMs(name).toFixed(1)} ms a call`,
    );
  for (const name of ['loopguard statusline', 'node statusline.cjs'])
    console.log(
      `${name}: ${(p(times[name], 0.5) / p(times["node -e ''"], 0.5)).toFixed(2)}× node -e '' (p50), ${(cpuMs(name) / cpuMs("node -e ''")).toFixed(2)}× (CPU)`,
    );
} finally {
  rmSync(work, { recursive: true, force: true });
}
