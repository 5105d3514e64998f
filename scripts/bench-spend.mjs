// What the spend guard adds to a Claude Code hook call after a tool call (`PostToolUse`, node
// start-up included): the same project and session without a budget, with a token budget (the
// transcript's new replies are read and counted) and with a dollar budget (the pricing library is
// loaded too), calls interleaved in the same run; each call finds one new reply in the transcript.
// Each call runs the command `init` writes (started from the hook's startup snapshot), through
// `sh -c`, as Claude Code runs it.
// With LOOPGUARD_BENCH_BASELINE=<another built checkout>, the dollar budget's calls run through
// that build too ("before: dollar budget"), interleaved in the same run, on a project of its own.
// With LOOPGUARD_BENCH_CPU=1, each call runs under `perf stat -e task-clock` and its CPU time (the
// process tree's) is reported beside the wall time: far steadier on a shared machine.
// Run: pnpm run build && node scripts/bench-spend.mjs [calls per variant]
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const CALLS = Number(process.argv[2] ?? 20);
const BASELINE = process.env.LOOPGUARD_BENCH_BASELINE;
const CPU = process.env.LOOPGUARD_BENCH_CPU === '1';
const cliOf = (root) => (path) => fileURLToPath(new URL(`packages/cli/dist/${path}`, root));
/** The hook command the `init` of the build at `build` writes for Claude Code (see commands/loopguardCommand.ts). */
const installedOf = async (build) => {
  const { snapshotHookCommand, usableHookSnapshot } = await import(build('hook/snapshotCommand.js'));
  const buildBin = build('bin.js');
  const blob = usableHookSnapshot(process.execPath, buildBin);
  if (blob === undefined) throw new Error(`no usable hook snapshot beside ${buildBin}: build it first`);
  return snapshotHookCommand([process.execPath, buildBin], blob, 'claude');
};
const installed = await installedOf(cliOf(new URL('../', import.meta.url)));
const work = mkdtempSync(join(os.tmpdir(), 'loopguard-bench-spend-'));

const DOLLARS = 'spend:\n  session:\n    maxCostUsd: 1000000\n';
const VARIANTS = {
  'no budget': { config: '' },
  'token budget': { config: 'spend:\n  session:\n    maxTokens: 1000000000\n' },
  'dollar budget': { config: DOLLARS },
};
if (BASELINE !== undefined)
  VARIANTS['before: dollar budget'] = {
    config: DOLLARS,
    command: await installedOf(cliOf(pathToFileURL(`${resolve(BASELINE)}/`))),
  };

/** A project per variant, with a transcript of 200 replies already read. */
function project({ config, command = installed }) {
  const dir = mkdtempSync(join(work, 'p-'));
  writeFileSync(join(dir, 'loopguard.config.yaml'), config || 'hook:\n  enabled: true\n');
  const transcript = join(dir, 'transcript.jsonl');
  writeFileSync(transcript, '');
  return { dir, transcript, replies: 0, command };
}

function reply(p) {
  p.replies++;
  const message = {
    id: `msg_${p.replies}`,
    model: 'claude-sonnet-4-5',
    role: 'assistant',
    usage: { input_tokens: 1200, output_tokens: 80, cache_read_input_tokens: 30000 },
    content: [{ type: 'text', text: `step ${p.replies}` }],
  };
  appendFileSync(
    p.transcript,
    `${JSON.stringify({ type: 'assistant', timestamp: new Date().toISOString(), message })}\n`,
  );
}

function call(p, n) {
  const event = {
    session_id: 'bench',
    transcript_path: p.transcript,
    cwd: p.dir,
    hook_event_name: 'PostToolUse',
    tool_name: 'Bash',
    tool_input: { command: `echo ${n} > f${n}.txt` },
    tool_response: { stdout: `wrote ${n}`, stderr: '', interrupted: false },
  };
  const perf = ['stat', '-x,', '-e', 'task-clock', '/bin/sh', '-c', p.command];
  const start = process.hrtime.bigint();
  const result = spawnSync(CPU ? 'perf' : '/bin/sh', CPU ? perf : ['-c', p.command], {
    input: JSON.stringify(event),
    env: { ...process.env, CLAUDE_PROJECT_DIR: '' },
    encoding: 'utf8',
  });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (result.status !== 0) throw new Error(`hook failed: ${result.stderr}`);
  const cpu = CPU ? /([\d.]+),msec,task-clock/.exec(result.stderr) : undefined;
  if (cpu === null) throw new Error(`perf stat measured nothing (is perf installed?): ${result.stderr}`);
  return { ms, cpu: cpu === undefined ? undefined : Number(cpu[1]) };
}

const projects = Object.fromEntries(
  Object.entries(VARIANTS).map(([name, variant]) => [name, project(variant)]),
);
for (const p of Object.values(projects)) for (let i = 0; i < 200; i++) reply(p);
const times = Object.fromEntries(Object.keys(VARIANTS).map((name) => [name, []]));
const cpuTimes = Object.fromEntries(Object.keys(VARIANTS).map((name) => [name, []]));
for (const p of Object.values(projects)) call(p, 0); // first calls: the database is created
for (let round = 1; round <= CALLS; round++) {
  for (const [name, p] of Object.entries(projects)) {
    reply(p);
    const { ms, cpu } = call(p, round);
    times[name].push(ms);
    if (cpu !== undefined) cpuTimes[name].push(cpu);
  }
}
const p50 = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
const base = p50(times['no budget']);
const cpuBase = CPU ? p50(cpuTimes['no budget']) : undefined;
console.log(
  `${CALLS} calls per variant, node ${process.version}, ${os.cpus().length} cores, load ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}; NODE_EXTRA_CA_CERTS ${process.env.NODE_EXTRA_CA_CERTS ? 'set' : 'unset'}`,
);
const cpuColumns = CPU ? ' p50 CPU ms | CPU × no budget |' : '';
console.log(
  `| variant | p50 ms | × no budget |${cpuColumns}\n| --- | ---: | ---: |${CPU ? ' ---: | ---: |' : ''}`,
);
for (const [name, list] of Object.entries(times)) {
  const cpu = CPU
    ? ` ${p50(cpuTimes[name]).toFixed(1)} | ${(p50(cpuTimes[name]) / cpuBase).toFixed(2)} |`
    : '';
  console.log(`| ${name} | ${p50(list).toFixed(1)} | ${(p50(list) / base).toFixed(2)} |${cpu}`);
}
rmSync(work, { recursive: true, force: true });
