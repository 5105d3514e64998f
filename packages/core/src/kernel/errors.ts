/**
 * Machine-readable error codes carried by every {@link LoopGuardError}.
 *
 * - `invalid_input`: an argument of a call was rejected; nothing was written.
 * - `invalid_config`: an option or configuration value is out of range or of the wrong type.
 * - `task_not_found`: a task id that the state machine does not know.
 * - `storage_error`: the storage adapter failed (I/O, constraint, corruption).
 * - `storage_unavailable`: the storage file cannot be opened (missing directory, not a database, read-only).
 * - `schema_too_new`: the database was written by a newer version of loopguard.
 * - `run_error`: a run (tick, executor, iteration session) failed.
 * - `timeout`: an operation exceeded its time limit.
 * - `aborted`: an operation was aborted through its `AbortSignal`.
 */
export type LoopGuardErrorCode =
  | 'invalid_input'
  | 'invalid_config'
  | 'task_not_found'
  | 'storage_error'
  | 'storage_unavailable'
  | 'schema_too_new'
  | 'run_error'
  | 'timeout'
  | 'aborted';

/**
 * Base class of every error loopguard throws on purpose.
 *
 * @example
 * try { detector.recordAttempt('', 'done', [], [], 's1'); }
 * catch (error) { if (error instanceof LoopGuardError) console.log(error.code); } // 'invalid_input'
 */
export class LoopGuardError extends Error {
  /** What failed, for programs: see {@link LoopGuardErrorCode}. */
  readonly code: LoopGuardErrorCode;

  /**
   * @param code - the error code.
   * @param message - a sentence naming the argument or resource and the problem.
   * @param options - `cause`: the underlying error, when there is one.
   */
  constructor(code: LoopGuardErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
  }
}

/** An argument was rejected before anything was written. Code `invalid_input`. */
export class InvalidInputError extends LoopGuardError {
  /** @param message - names the argument and what is wrong with its value. */
  constructor(message: string, options?: { cause?: unknown }) {
    super('invalid_input', message, options);
  }
}

/** An option or configuration value is invalid. Code `invalid_config`. */
export class ConfigurationError extends LoopGuardError {
  /** @param message - names the option and what is wrong with its value. */
  constructor(message: string, options?: { cause?: unknown }) {
    super('invalid_config', message, options);
  }
}

/** A storage adapter failed. Code `storage_error`, `storage_unavailable`, `schema_too_new` or `task_not_found`. */
export class StorageError extends LoopGuardError {
  /**
   * @param code - one of the storage codes.
   * @param message - names the path or record and the problem.
   */
  constructor(
    code: 'storage_error' | 'storage_unavailable' | 'schema_too_new' | 'task_not_found',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
  }
}

/** A run (tick, executor call, iteration session) failed. Code `run_error`, `timeout` or `aborted`. */
export class RunError extends LoopGuardError {
  /**
   * @param code - `run_error`, `timeout` or `aborted`.
   * @param message - what failed.
   */
  constructor(code: 'run_error' | 'timeout' | 'aborted', message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}
