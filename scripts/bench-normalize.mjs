// Speed of core's normalizeVolatile on the texts of the step corpus (actions, observations,
// messages), against the pass-by-pass form it replaced (every pattern on every text), in one run.
// Run: npx tsc -b && node scripts/bench-normalize.mjs
import os from 'node:os';
import { normalizeVolatile } from '../packages/core/dist/signatures/normalizeVolatile.js';
import { loadCorpus } from './bench/stepCorpus.mjs';

// The former implementation, kept here only as the competitor (the property test holds the same oracle).
const PASS_BY_PASS = [
  // biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI sequences start with the ESC control character
  [/\u001b\[[0-9;?]*[ -/]*[@-~]/g, ''],
  [/\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?/g, '<time>'],
  [/\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b/g, '<time>'],
  [/(?:\/private)?\/var\/folders\/[^\s'"`:)]+(?::\d+){0,2}/g, '<tmp>'],
  [/\/tmp\/[^\s'"`:)]+(?::\d+){0,2}/g, '<tmp>'],
  [/[A-Za-z]:\\Users\\[^\\\s]+\\AppData\\Local\\Temp\\[^\s'"`:)]+(?::\d+){0,2}/g, '<tmp>'],
  [/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '<id>'],
  [/\b0x[0-9a-f]+\b/gi, '<hex>'],
  [/\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{12,}\b/gi, '<hex>'],
  [/\b(pid|process)([\s:=#]+)\d+/gi, '$1$2<pid>'],
  [/\b\d+(?:\.\d+)?\s?(?:ns|µs|us|ms|s|secs?|seconds?|mins?|minutes?)\b/g, '<dur>'],
  [/(\.[A-Za-z][\w]*):\d+(?::\d+)?/g, '$1:<n>'],
  [/(\.[A-Za-z][\w]*)\(\d+,\d+\)/g, '$1(<n>)'],
  [/\b(line)\s+\d+/gi, '$1 <n>'],
];
function passByPass(text) {
  let result = text;
  for (const [pattern, replacement] of PASS_BY_PASS) result = result.replace(pattern, replacement);
  return result.replace(/\s+/g, ' ').trim();
}

const steps = loadCorpus().flatMap((run) => run.steps);
const groups = {
  'actions (inputs)': steps
    .filter((s) => s.type === 'action')
    .map((s) => (typeof s.input === 'string' ? s.input : JSON.stringify(s.input))),
  'observations (first 256 chars)': steps
    .filter((s) => s.type === 'observation')
    .map((s) => s.output.slice(0, 256)),
  'observations (whole)': steps.filter((s) => s.type === 'observation').map((s) => s.output),
};
const REPS = Number(process.env.LOOPGUARD_BENCH_REPS ?? 15);
function timeOf(fn, texts) {
  const samples = [];
  for (let rep = 0; rep < REPS; rep++) {
    const start = process.hrtime.bigint();
    for (const text of texts) fn(text);
    samples.push(Number(process.hrtime.bigint() - start) / texts.length);
  }
  return samples.sort((a, b) => a - b)[Math.floor(samples.length / 2)];
}
console.log(`normalizeVolatile, µs per text (median of ${REPS} rounds over the corpus texts)`);
console.log(
  `node ${process.version}, ${os.cpus().length} cores, load average ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}\n`,
);
console.log('| texts | count | pass by pass (before) | guarded (now) | speed-up |');
console.log('| --- | --- | --- | --- | --- |');
for (const [label, texts] of Object.entries(groups)) {
  for (const text of texts)
    if (passByPass(text) !== normalizeVolatile(text))
      throw new Error(`outputs differ on ${JSON.stringify(text.slice(0, 80))}`);
  timeOf(passByPass, texts);
  timeOf(normalizeVolatile, texts);
  const before = timeOf(passByPass, texts);
  const now = timeOf(normalizeVolatile, texts);
  console.log(
    `| ${label} | ${texts.length} | ${(before / 1000).toFixed(2)} | ${(now / 1000).toFixed(2)} | ${(before / now).toFixed(2)}× |`,
  );
}
