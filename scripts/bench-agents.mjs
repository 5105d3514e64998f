// Overhead of the @loopguard/agents adapters per step, measured against each framework's own loop
// with a scripted model in the same run: the framework runs `STEPS` tool calls that make progress,
// alternately without and with the adapter. Two figures per framework: the adapter's own time per
// step (its functions timed from inside the run) and the difference of the runs per step (best
// round and median).
// Target (issue): at most 5 % of the framework's per-step time or 10 µs, whichever is larger.
// Run: npx tsc -b && node scripts/bench-agents.mjs
// Env: LOOPGUARD_BENCH_ROUNDS (default 30), LOOPGUARD_BENCH_STEPS (default 40).
import { existsSync } from 'node:fs';
import { cpus, homedir, loadavg } from 'node:os';
import { join } from 'node:path';
import { aiSdk, claudeAgentSdk, langGraph, openAiAgents } from './bench/agentFrameworks.mjs';

const ROUNDS = Number(process.env.LOOPGUARD_BENCH_ROUNDS ?? 30);
const STEPS = Number(process.env.LOOPGUARD_BENCH_STEPS ?? 40);
const CLAUDE = join(
  homedir(),
  '.cache',
  'loopguard-test',
  'claude-code-2.1.330',
  'node_modules',
  '@anthropic-ai',
  `claude-code-${process.platform}-${process.arch}`,
  'claude',
);

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

async function measure(name, drive, rounds, steps) {
  const base = [];
  const guarded = [];
  const own = [];
  const cpu = { base: [], guarded: [] };
  for (let round = -2; round < rounds; round++) {
    // alternate the order so that warm-up and drift hit both sides alike; rounds < 0 warm up
    for (const withGuard of round % 2 === 0 ? [false, true] : [true, false]) {
      const clock = { ns: 0n };
      const cpuStart = process.cpuUsage();
      const start = process.hrtime.bigint();
      const result = await drive(steps, withGuard, clock);
      const perStep = Number(process.hrtime.bigint() - start) / 1000 / result.steps;
      const used = process.cpuUsage(cpuStart);
      const cpuPerStep = (used.user + used.system) / result.steps;
      if (result.steps !== steps) throw new Error(`${name}: ran ${result.steps} steps, expected ${steps}`);
      if (result.nudges !== 0) throw new Error(`${name}: the guard nudged a run that makes progress`);
      if (round < 0) continue;
      (withGuard ? guarded : base).push(perStep);
      cpu[withGuard ? 'guarded' : 'base'].push(cpuPerStep);
      if (withGuard) own.push(Number(clock.ns) / 1000 / result.steps);
    }
  }
  // On a shared machine the median carries the other processes' load; the best round is the
  // closest to each side's own cost, so the target is judged on it (both are printed).
  const best = (values) => Math.min(...values);
  const framework = best(base);
  const adapter = best(own);
  const target = Math.max(0.05 * framework, 10);
  return {
    name,
    framework,
    adapter,
    difference: best(guarded) - framework,
    target,
    medians: { framework: median(base), adapter: median(own), difference: median(guarded) - median(base) },
    // this process's CPU time per step (µs): other processes' load does not add to it
    cpu: { framework: median(cpu.base), difference: median(cpu.guarded) - median(cpu.base) },
    met: adapter <= target,
  };
}

const fmt = (us) => `${us.toFixed(1)} µs`;
console.log(
  `node ${process.version}, ${cpus().length} × ${cpus()[0]?.model}, load ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
);
console.log(
  `${ROUNDS} rounds × ${STEPS} steps each side (Claude Agent SDK: 3 rounds × 8 turns: it spawns Claude Code)\n`,
);
const rows = [];
rows.push(await measure('ai 7.0.173 (generateText, MockLanguageModelV4)', await aiSdk(), ROUNDS, STEPS));
rows.push(await measure('@openai/agents 0.20.0 (run, scripted Model)', await openAiAgents(), ROUNDS, STEPS));
rows.push(
  await measure('@langchain/langgraph 1.7.3 (scripted node + ToolNode)', await langGraph(), ROUNDS, STEPS),
);
if (existsSync(CLAUDE))
  rows.push(
    await measure(
      '@anthropic-ai/claude-agent-sdk 0.3.330 (Claude Code 2.1.330, scripted API)',
      await claudeAgentSdk(CLAUDE),
      3,
      8,
    ),
  );
else console.log(`Claude Agent SDK skipped: no Claude Code at ${CLAUDE} (the test suite installs it)`);

const pct = (part, whole) => `${((100 * part) / whole).toFixed(1)} %`;
console.log(
  '| framework | framework per step | adapter’s own time per step | with − without | target | met | medians: framework / own / with − without | CPU per step (median): framework / with − without |',
);
console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
for (const r of rows) {
  const m = r.medians;
  console.log(
    `| ${r.name} | ${fmt(r.framework)} | ${fmt(r.adapter)} (${pct(r.adapter, r.framework)}) | ${fmt(r.difference)} (${pct(r.difference, r.framework)}) | ≤ ${fmt(r.target)} | ${r.met ? 'yes' : 'no'} | ${fmt(m.framework)} / ${fmt(m.adapter)} / ${fmt(m.difference)} | ${fmt(r.cpu.framework)} / ${fmt(r.cpu.difference)} (${pct(r.cpu.difference, r.cpu.framework)}) |`,
  );
}
