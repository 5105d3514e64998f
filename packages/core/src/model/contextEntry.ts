/** Kinds of context entry: `decision | constraint | hypothesis | learning`. */
export const CONTEXT_ENTRY_TYPES = ['decision', 'constraint', 'hypothesis', 'learning'] as const;

/** One of {@link CONTEXT_ENTRY_TYPES}. */
export type ContextEntryType = (typeof CONTEXT_ENTRY_TYPES)[number];

/** Topics loopguard writes its recoveries under (the seed's SQL queries these). */
export const RECOVERY_TOPICS = ['loop_recovery', 'unblock_authority', 'loop_escalation'] as const;

/** One of {@link RECOVERY_TOPICS}. */
export type RecoveryTopic = (typeof RECOVERY_TOPICS)[number];

/** Context-entry topics of step-level loops: `loop_nudge` (a nudge given) and `loop_stop` (a run stopped). */
export const STEP_LOOP_TOPICS = ['loop_nudge', 'loop_stop'] as const;

/** Context-entry topics of the spend guard: `spend_warning` (a warning given) and `spend_stop` (a run stopped at its budget). */
export const SPEND_TOPICS = ['spend_warning', 'spend_stop'] as const;

/**
 * Context-entry topic of a call loopguard refused before it ran, the session going on
 * (`call_refused`: the model's own call against loopguard's state, configuration or off switch).
 */
export const REFUSAL_TOPICS = ['call_refused'] as const;

/**
 * Context-entry topic of a framework adapter's run, written once at its first step (`run_started`,
 * its `adapter` and `runId` in the metadata): a run loopguard never spoke to is a session too. Not
 * a recovery: no reader of the recoveries lists it.
 */
export const RUN_STARTED_TOPIC = 'run_started';

/**
 * Context-entry topic of a hook session its agent said it ended (`session_ended`, written at the
 * agent's `SessionEnd` event, the session's task as its related task): the sessions view then says it
 * is no longer running, until a later event of the session (a resumed one). Not a recovery: no
 * reader of the recoveries lists it.
 */
export const SESSION_ENDED_TOPIC = 'session_ended';

/** A record in the shared context: every recovery is one. */
export interface ContextEntry {
  /** Unique id assigned by the state machine. */
  readonly id: string;
  /** When it was written, epoch ms. */
  readonly timestamp: number;
  /** Kind of entry. */
  readonly entryType: ContextEntryType;
  /** Topic, for example `loop_recovery`. */
  readonly topic: string;
  /** The text the autopilot reads (markdown). */
  readonly content: string;
  /** Task ids the entry concerns. */
  readonly relatedTasks: readonly string[];
  /** Confidence 0..1. */
  readonly confidence: number;
  /** JSON metadata; recoveries store their evidence here. */
  readonly metadata: Readonly<Record<string, unknown>>;
}

/** What a caller gives to add a context entry; the state machine assigns `id` and `timestamp`. */
export interface ContextEntryInput {
  /** Kind of entry. */
  entryType: ContextEntryType;
  /** Topic. */
  topic: string;
  /** Text. */
  content: string;
  /** Task ids the entry concerns. @default [] */
  relatedTasks?: readonly string[];
  /** Confidence 0..1. @default 1 */
  confidence?: number;
  /** JSON metadata. @default {} */
  metadata?: Record<string, unknown>;
}

/** Filter for listing context entries; all fields optional, results newest first. */
export interface ContextEntryQuery {
  /** Only these topics. @default every topic */
  topics?: readonly string[];
  /** Only entries whose `relatedTasks` contain this task id. @default every task's */
  taskId?: string;
  /** Only entries at or after this time, epoch ms. @default no lower bound */
  since?: number;
  /** At most this many entries. @default no limit */
  limit?: number;
}
