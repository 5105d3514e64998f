import type { Step } from '@loopguard/core/steps';
import { type GuardVerdict, neverRan } from './guardVerdicts.js';

/**
 * A tool call's action, held until the record that answers it, for the transcripts that write a
 * call and its result in two records (Claude Code's, Codex's rollout). When loopguard refused the
 * call (the model's own call against loopguard: a `refusal`) or its spend guard denied it, the call
 * never ran: `scan` counts it and never observes it ({@link neverRan}), so that such calls are no
 * attempt, no change and no loop. Any other record gives the held action first.
 */
export class HeldCall {
  private held: { step: Step; callId: string } | undefined;

  /**
   * Whether the record answering call `callId` says the held call never ran (`guard`, {@link neverRan}):
   * then the call is dropped, to be counted only (`TranscriptRead.unobservedCalls`).
   */
  refused(callId: unknown, guard: readonly GuardVerdict[]): boolean {
    if (this.held === undefined || callId !== this.held.callId) return false;
    if (!neverRan(guard)) return false;
    this.held = undefined;
    return true;
  }

  /**
   * The steps to give now: the held action first, then `steps`; a record whose one step is the
   * action of call `callId` is held instead, until its answer.
   */
  give(steps: Step[], callId?: unknown): Step[] {
    const given = this.held === undefined ? [] : [this.held.step];
    this.held = undefined;
    const [action] = steps;
    if (steps.length === 1 && action?.type === 'action' && typeof callId === 'string')
      this.held = { step: action, callId };
    else given.push(...steps);
    return given;
  }
}
