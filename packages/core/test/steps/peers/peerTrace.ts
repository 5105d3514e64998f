import { expect } from 'vitest';
import type { StepVerdict } from '../../../src/entries/steps.js';

/**
 * What loopguard answered to one event of a peer's case: the event in words and the verdicts of
 * the steps (or streamed pieces) it became. An event that is no step (a user prompt) has none.
 */
export interface TracedEvent {
  /** The peer's event, in a few words (`tool read_file {"file_path":"a.txt"}`, `content 50 chars`). */
  label: string;
  /** loopguard's verdicts for the steps and partials this event became, in order. */
  verdicts: StepVerdict[];
}

/** A whole case as loopguard saw it, event by event. */
export type PeerTrace = TracedEvent[];

function verdictText(verdict: StepVerdict): string {
  return verdict.loopType === null ? verdict.action : `${verdict.action}:${verdict.loopType}`;
}

/** One line per event with loopguard's verdicts: shown when an expectation fails. */
export function formatTrace(trace: PeerTrace): string {
  return trace
    .map(
      (event, index) =>
        `  #${index + 1} ${event.label} -> ${event.verdicts.map(verdictText).join(', ') || '-'}`,
    )
    .join('\n');
}

const detected = (verdict: StepVerdict) => verdict.action !== 'continue';

/** The 1-based index of the first event whose verdicts include a nudge or a stop; 0 when none does. */
export function firstDetection(trace: PeerTrace): number {
  return trace.findIndex((event) => event.verdicts.some(detected)) + 1;
}

/** The 1-based index of the first event whose verdicts include a stop; 0 when none does. */
export function firstStop(trace: PeerTrace): number {
  return trace.findIndex((event) => event.verdicts.some((verdict) => verdict.action === 'stop')) + 1;
}

/** The peer saw a loop at event `at` (1-based): loopguard must have nudged or stopped by then. */
export function expectCaughtBy(trace: PeerTrace, at: number): void {
  const first = firstDetection(trace);
  expect(first > 0 && first <= at, `expected a nudge or stop by event #${at}:\n${formatTrace(trace)}`).toBe(
    true,
  );
}

/** The peer's escalation (a second strike, a halt) at event `at`: loopguard must stop there. */
export function expectStopAt(trace: PeerTrace, at: number): void {
  const stopped = trace[at - 1]?.verdicts.some((verdict) => verdict.action === 'stop') ?? false;
  expect(stopped, `expected a stop at event #${at}:\n${formatTrace(trace)}`).toBe(true);
}

/** The peer saw no loop and would have gone on quietly: loopguard may neither nudge nor stop. */
export function expectQuiet(trace: PeerTrace): void {
  expect(firstDetection(trace), `expected no nudge and no stop:\n${formatTrace(trace)}`).toBe(0);
}

/** The peer saw no loop and would not have halted the agent: loopguard may nudge, never stop. */
export function expectNoStop(trace: PeerTrace): void {
  expect(firstStop(trace), `expected no stop:\n${formatTrace(trace)}`).toBe(0);
}
