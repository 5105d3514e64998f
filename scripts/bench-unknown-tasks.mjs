// Memory of read-only calls: 500,000 detectLoop calls on distinct unknown task
// ids must not grow the heap. For comparison, the same run records one attempt on each of 50,000
// distinct ids (which the detector must keep).
// Run: npx tsc -b && node --expose-gc scripts/bench-unknown-tasks.mjs
import os from 'node:os';
import { InMemoryStorage, LoopDetector } from '../packages/core/dist/index.js';

if (typeof globalThis.gc !== 'function') throw new Error('run with node --expose-gc');

function heapAfterGc() {
  globalThis.gc();
  globalThis.gc();
  return process.memoryUsage().heapUsed;
}

function measure(label, calls, fn) {
  const detector = new LoopDetector(new InMemoryStorage());
  const before = heapAfterGc();
  for (let i = 0; i < calls; i++) fn(detector, i);
  const grown = heapAfterGc() - before;
  console.log(`${label}: ${calls.toLocaleString('en')} calls, heap grew ${(grown / 2 ** 20).toFixed(1)} MB`);
  return detector;
}

console.log(`node ${process.version}, ${os.cpus().length} cores`);
const kept = [];
kept.push(measure('detectLoop on unknown ids', 500_000, (d, i) => d.detectLoop(`unknown-${i}`)));
kept.push(
  measure('recordAttempt on new ids (kept, for comparison)', 50_000, (d, i) =>
    d.recordAttempt(`task-${i}`, 'in_progress', [], ['w'], 's'),
  ),
);
