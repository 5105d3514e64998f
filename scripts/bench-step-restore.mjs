// What restoring the step detector costs a command hook on a long session: the detector's snapshot
// after 2,000 steps of the OpenHands dev corpus (or the gemini-3-pro one when it is absent), restored
// in fresh processes (as each hook call is one), alternately from plain JSON (`restore`, every part
// validated) and from the sealed text the hook now stores (`restoreSealed`, its own output taken as
// written). Each child times only its restore (the import is done before), with its CPU time.
// Run: npx tsc -b && node scripts/bench-step-restore.mjs [processes per variant, default 20]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { StepLoopDetector } from '../packages/core/dist/entries/steps.js';
import { labelledCorpusDir } from './bench/labelledLoops.mjs';
import { loadCorpus } from './bench/stepCorpus.mjs';

const CALLS = Number(process.argv[2] ?? 20);
const STEPS = 2000;
let runs;
try {
  runs = loadCorpus(labelledCorpusDir('openhands'));
} catch {
  runs = loadCorpus();
}
const detector = new StepLoopDetector();
for (const step of runs.flatMap((run) => run.steps).slice(0, STEPS)) detector.observe(step);
const work = mkdtempSync(join(os.tmpdir(), 'loopguard-bench-restore-'));
const files = { plain: join(work, 'plain.json'), sealed: join(work, 'sealed.json') };
writeFileSync(files.plain, JSON.stringify(detector.snapshot()));
writeFileSync(files.sealed, detector.sealedSnapshot());

const steps = fileURLToPath(new URL('../packages/core/dist/entries/steps.js', import.meta.url));
const child = `
const { readFileSync } = require('node:fs');
import(${JSON.stringify(steps)}).then(({ StepLoopDetector }) => {
  const text = readFileSync(process.argv[1], 'utf8');
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  const restored = process.argv[2] === 'sealed'
    ? StepLoopDetector.restoreSealed(text)
    : StepLoopDetector.restore(JSON.parse(text));
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  const used = process.cpuUsage(cpu);
  console.log(JSON.stringify({ ms, cpu: (used.user + used.system) / 1000, steps: restored.stepCount }));
});`;
const times = { plain: [], sealed: [] };
for (let i = 0; i < CALLS; i++) {
  for (const variant of i % 2 === 0 ? ['plain', 'sealed'] : ['sealed', 'plain']) {
    const out = spawnSync(process.execPath, ['-e', child, files[variant], variant], { encoding: 'utf8' });
    const result = JSON.parse(out.stdout);
    if (result.steps !== STEPS) throw new Error(`${variant}: restored ${result.steps} steps`);
    times[variant].push(result);
  }
}
rmSync(work, { recursive: true, force: true });
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)];
console.log(
  `snapshot of ${STEPS} steps: ${detector.sealedSnapshot().length} characters; ${CALLS} processes a variant`,
);
console.log(
  `node ${process.version}, ${os.cpus().length} cores, load average ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(', ')}\n`,
);
console.log('| restore in a fresh process | median ms | median CPU ms |');
console.log('| --- | --- | --- |');
for (const [variant, label] of [
  ['plain', '`restore(JSON.parse(text))`, every part validated (before)'],
  ['sealed', '`restoreSealed(text)`, its own sealed snapshot'],
]) {
  const rows = times[variant];
  console.log(
    `| ${label} | ${median(rows.map((r) => r.ms)).toFixed(1)} | ${median(rows.map((r) => r.cpu)).toFixed(1)} |`,
  );
}
