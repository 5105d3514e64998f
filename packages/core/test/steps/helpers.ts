import { pino } from 'pino';
import {
  type Step,
  StepLoopDetector,
  type StepLoopDetectorOptions,
  type StepVerdict,
} from '../../src/entries/steps.js';
import { InMemoryStateMachine, ManualClock } from '../../src/index.js';

/** A detector with a manual clock and captured log lines. */
export function makeStepDetector(options: StepLoopDetectorOptions = {}) {
  const clock = new ManualClock(1_763_500_000_000);
  const lines: Array<{ level: number; msg: string }> = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  const detector = new StepLoopDetector({ clock, logger, ...options });
  return { clock, detector, lines };
}

/** A detector recording to an in-memory state machine under task `T1`. */
export function makeRecordingDetector(options: StepLoopDetectorOptions = {}) {
  const clock = new ManualClock(1_763_500_000_000);
  const stateMachine = new InMemoryStateMachine({ clock });
  stateMachine.upsertTask({ id: 'T1', title: 'Fix the parser' });
  const detector = new StepLoopDetector({ clock, stateMachine, taskId: 'T1', runId: 'run-1', ...options });
  return { clock, stateMachine, detector };
}

/** One turn: optional reasoning, the action, its observation. */
export function turn(
  input: unknown,
  output: string,
  options: { error?: boolean; tool?: string; reason?: string } = {},
): Step[] {
  const tool = options.tool ?? 'bash';
  const steps: Step[] = [];
  if (options.reason !== undefined) steps.push({ type: 'message', text: options.reason });
  steps.push({ type: 'action', tool, input });
  steps.push({ type: 'observation', tool, output, ...(options.error ? { error: true } : {}) });
  return steps;
}

/** Feeds every step and returns the verdicts. */
export function feed(detector: StepLoopDetector, steps: readonly Step[]): StepVerdict[] {
  return steps.map((step) => detector.observe(step));
}

/** Plays `steps` restoring the detector from its JSON snapshot before every step (as the command hook does). */
export function restoredEachStep(steps: readonly Step[]): StepVerdict[] {
  let detector = makeStepDetector().detector;
  return steps.map((step) => {
    detector = StepLoopDetector.restore(JSON.parse(JSON.stringify(detector.snapshot())));
    return detector.observe(step);
  });
}

/** The non-continue verdicts of a run. */
export function detections(verdicts: readonly StepVerdict[]): StepVerdict[] {
  return verdicts.filter((verdict) => verdict.action !== 'continue');
}

/**
 * Options that leave out the in-a-row shortcut (`verbatimThreshold`), for tests of the counting
 * thresholds and the ladder that repeat one turn in a row.
 */
export const COUNTS_ONLY = { verbatimThreshold: 1000, verbatimChangeThreshold: 1000 } as const;
