import type { AsyncStateMachine, ContextEntry, ContextEntryInput, StateMachine } from '@loopguard/core';
import type { Logger, RunTally } from '@loopguard/core/internal';

/** What {@link recordingPort} returns: the port the detector writes through, and its pending writes. */
export interface RecordingPort {
  /** The synchronous port handed to the `StepLoopDetector`. */
  readonly port: StateMachine;
  /**
   * Resolves when every write started so far has finished (a failed write is logged, never
   * thrown); `undefined` when none is pending.
   */
  settled(): Promise<void> | undefined;
  /**
   * Writes the run's tally (`recordRunTally`), tracked like an entry; `undefined` when the store has
   * no such method (a store of one's own): the run then shows no tally.
   */
  readonly recordTally: ((tally: RunTally) => void) | undefined;
}

function isPromise(value: unknown): value is Promise<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

/**
 * Lets the synchronous `StepLoopDetector` record through either port. A synchronous state machine
 * (SQLite, memory) is written at once; an asynchronous one (PostgreSQL) is written in the background,
 * and the adapters await {@link RecordingPort.settled} before they hand control back to the framework.
 * The detector only ever calls `addContextEntry`; for an asynchronous write it gets back the entry as
 * submitted (id `pending`, the time of the call), since the stored one does not exist yet.
 * @param adapter - the framework's name, added to every entry's metadata (`adapter`); absent: none.
 */
export function recordingPort(
  stateMachine: StateMachine | AsyncStateMachine,
  now: () => number,
  log: () => Logger,
  adapter?: string,
): RecordingPort {
  const pending = new Set<Promise<void>>();
  /** Tracks an asynchronous write so that {@link RecordingPort.settled} waits for it; a failure is logged. */
  const track = (result: Promise<unknown>, topic: string): void => {
    const write = result.then(
      () => undefined,
      (error: unknown) => log().error({ err: error, topic }, 'Recording a step loop failed'),
    );
    const tracked = write.finally(() => pending.delete(tracked));
    pending.add(tracked);
  };
  const addContextEntry = (given: ContextEntryInput): ContextEntry => {
    // The adapter's name lets the sessions view list this run as a session of that framework.
    const input = adapter === undefined ? given : { ...given, metadata: { ...given.metadata, adapter } };
    const result: unknown = stateMachine.addContextEntry(input);
    if (!isPromise(result)) return result as ContextEntry;
    track(result, input.topic);
    return {
      id: 'pending',
      timestamp: now(),
      entryType: input.entryType,
      topic: input.topic,
      content: input.content,
      relatedTasks: input.relatedTasks ?? [],
      confidence: input.confidence ?? 1,
      metadata: input.metadata ?? {},
    };
  };
  // The detector's option schema checks for addContextEntry only, and it is the one method it calls.
  const port = { addContextEntry } as unknown as StateMachine;
  const recordTally =
    typeof stateMachine.recordRunTally !== 'function'
      ? undefined
      : (tally: RunTally) => {
          const result: unknown = stateMachine.recordRunTally?.(tally);
          if (isPromise(result)) track(result, 'run tally');
        };
  return {
    port,
    recordTally,
    settled: () => (pending.size === 0 ? undefined : Promise.all([...pending]).then(() => undefined)),
  };
}
