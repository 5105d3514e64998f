// What the status line pays to say that the hooks fail open on the project's configuration
// (sessions55): `node dist/bundle/statusline.cjs` (what `init claude --status-line` writes) in a
// project whose `loopguard.config.yaml` the hooks refuse (`repeatThreshold: 1`, sealed as refused by
// a hook call), against the same project with a valid file (sealed as valid), with no file, and
// `node -e ''`; beside them, the check `status` makes of the file (`checkedHookConfigNow`: the YAML
// parser and the detector's schema), run cold in a process of its own, which the status line would
// pay after every reply without the seal (ES modules from dist: its load is counted too).
// Calls interleaved; CPU from the children's times in /proc/self/stat.
// Run: pnpm run build && node scripts/bench-statusline-config.mjs [calls per variant]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const CALLS = Number(process.argv[2] ?? 30);
const cli = (path) => fileURLToPath(new URL(`../packages/cli/dist/${path}`, import.meta.url));
const { guardProject } = await import(cli('hook/guardProject.js'));

const work = mkdtempSync(join(os.tmpdir(), 'loopguard-bench-statusline-config-'));
/** A project whose hooks recorded 20 tool calls of one session, with `config` as its file (if any). */
async function project(name, config) {
  const dir = join(work, name);
  const call = (i) =>
    guardProject(
      'claude',
      {
        kind: 'after_tool',
        sessionId: 'bench-session',
        projectDir: dir,
        eventName: 'after',
        tool: 'Bash',
        input: `cat src/module_${i}.py`,
        output: `line ${i}\n`,
        error: false,
      },
      Date.now,
    );
  (await import('node:fs')).mkdirSync(dir);
  for (let i = 0; i < 20; i++) await call(i);
  if (config !== undefined) {
    writeFileSync(join(dir, 'loopguard.config.yaml'), config);
    // a hook call reads the file as the hooks do, and seals what it found (valid, or refused)
    await call(20).catch(() => undefined);
    await call(21).catch(() => undefined);
  }
  return dir;
}
try {
  const failing = await project('failing', 'hook:\n  repeatThreshold: 1\n');
  const valid = await project(
    'valid',
    'hook:\n  repeatThreshold: 4\nspend:\n  session:\n    maxCostUsd: 5\n',
  );
  const none = await project('none');
  const input = (dir) => JSON.stringify({ session_id: 'bench-session', cwd: dir });
  const statusline = cli('bundle/statusline.cjs');
  const check = `import(${JSON.stringify(cli('hook/checkedHookConfig.js'))}).then((m) => { try { m.checkedHookConfigNow(${JSON.stringify(failing)}); } catch {} })`;
  const variants = {
    "node -e ''": [['-e', ''], none],
    'statusline, no file': [[statusline], none],
    'statusline, valid file': [[statusline], valid],
    'statusline, failing open': [[statusline], failing],
    "status's check, cold": [['--input-type=module', '-e', check], failing],
  };
  const times = Object.fromEntries(Object.keys(variants).map((name) => [name, []]));
  const cpu = Object.fromEntries(Object.keys(variants).map((name) => [name, 0]));
  const childTicks = () => {
    const stat = readFileSync('/proc/self/stat', 'latin1');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[13]) + Number(fields[14]); // cutime, cstime
  };
  const lines = {};
  for (let round = 0; round < CALLS; round++) {
    for (const [name, [args, dir]] of Object.entries(variants)) {
      const ticks = childTicks();
      const start = process.hrtime.bigint();
      const result = spawnSync(process.execPath, args, { input: input(dir), encoding: 'utf8' });
      times[name].push(Number(process.hrtime.bigint() - start) / 1e6);
      cpu[name] += childTicks() - ticks;
      lines[name] = result.stdout.trim();
    }
  }
  const p = (list, q) => [...list].sort((a, b) => a - b)[Math.floor((list.length - 1) * q)];
  const cpuMs = (name) => (cpu[name] * 10) / CALLS; // USER_HZ 100
  console.log(
    `${CALLS} calls each, interleaved; ${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(1)}, node ${process.version}`,
  );
  for (const [name, list] of Object.entries(times))
    console.log(
      `${name.padEnd(26)} p50 ${p(list, 0.5).toFixed(1)} ms  p90 ${p(list, 0.9).toFixed(1)} ms  CPU ${cpuMs(name).toFixed(1)} ms  ${(cpuMs(name) / cpuMs("node -e ''")).toFixed(2)}× node -e '' (CPU)  ${lines[name] ?? ''}`,
    );
} finally {
  rmSync(work, { recursive: true, force: true });
}
