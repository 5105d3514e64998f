import type { ContextEntryInput } from '@loopguard/core';
import type { Step, StepLoopDetectorOptions } from '@loopguard/core/steps';
import type { HookAgent } from './hookEvent.js';

/** What {@link guardSession} needs besides the event and the stored session. */
export interface GuardContext {
  /** The CLI whose session this is. */
  agent: HookAgent;
  /** Options of the session's detector (from the project's configuration). */
  detector: StepLoopDetectorOptions;
  /** Writes a nudge or stop entry (same transaction as the session). */
  record(entry: ContextEntryInput): void;
  /** Epoch ms, for `detectedAt`. */
  now(): number;
  /**
   * Claude Code: call `callId`'s action and result as the session's own transcript holds them
   * (`readClaudeCall`), `[]` while it holds no result of it. Absent: no transcript is read.
   */
  readCall?(callId: string): Step[];
}
