// loopguard's detector as the quality benches run it: this build (packages/core/dist), and, when
// $LOOPGUARD_BENCH_BASELINE names a copy of an older packages/core/dist (kept inside
// packages/core/node_modules so that its dependencies resolve), the build before it, in the same run:
// before/after tables come from one run, never from two runs of different days.
// Env: LOOPGUARD_STEP_OPTIONS (options for this build's detector, as JSON; the default is the defaults).
import { StepLoopDetector } from '../../packages/core/dist/entries/steps.js';
import { stepDetectorOf } from './stepBuild.mjs';

/** `[{ name, create }]`: the build before (when asked for), then this build. */
export async function loopguardDetectors() {
  const options = JSON.parse(process.env.LOOPGUARD_STEP_OPTIONS ?? '{}');
  const detectors = [];
  const baseline = process.env.LOOPGUARD_BENCH_BASELINE;
  if (baseline !== undefined && baseline !== '') {
    const Before = await stepDetectorOf(baseline);
    detectors.push({ name: 'loopguard before', create: () => wrap(new Before()) });
  }
  detectors.push({ name: 'loopguard', create: () => wrap(new StepLoopDetector(options)) });
  return detectors;
}

function wrap(detector) {
  return { observe: (step) => detector.observe(step).action };
}
