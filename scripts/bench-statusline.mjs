// What Claude Code's status line costs with loopguard: `loopguard statusline` (node start-up
// included) on a session of 2,000 steps (1,000 tool calls, written through the hook's own code
// path, nudged and stopped), against `node -e ''` in the same run, calls interleaved. Claude Code
// runs the status line after every reply. Target (issue 35): ≤ 50 ms a call.
// Run: pnpm run build && node scripts/bench-statusline.mjs [calls per variant]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
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
  };
  const times = Object.fromEntries(Object.keys(variants).map((name) => [name, []]));
  let line = '';
  for (let round = 0; round < CALLS; round++) {
    for (const [name, [file, args]] of Object.entries(variants)) {
      const start = process.hrtime.bigint();
      const result = spawnSync(file, args, { input, encoding: 'utf8' });
      times[name].push(Number(process.hrtime.bigint() - start) / 1e6);
      if (name === 'loopguard statusline') line = result.stdout.trim();
    }
  }
  const p = (list, q) => [...list].sort((a, b) => a - b)[Math.floor((list.length - 1) * q)];
  console.log(`status line printed: ${line}`);
  console.log(
    `${CALLS} calls each, interleaved; ${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(1)}, node ${process.version}`,
  );
  for (const [name, list] of Object.entries(times))
    console.log(`${name.padEnd(22)} p50 ${p(list, 0.5).toFixed(1)} ms  p90 ${p(list, 0.9).toFixed(1)} ms`);
  const ratio = p(times['loopguard statusline'], 0.5) / p(times["node -e ''"], 0.5);
  console.log(`ratio (p50): ${ratio.toFixed(2)}× node -e ''`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
