import { LoopGuardError, RunError, StorageError } from '@loopguard/core';

/** A storage failure thrown inside a tick, carried out of the generic fault handling; otherwise `undefined`. */
export function storageErrorOf(error: unknown): StorageError | undefined {
  return error instanceof StorageError ? error : undefined;
}

/** `error` as a {@link LoopGuardError}: itself when it is one, else a `run_error` `Tick failed: …` wrapping it. */
export function asLoopGuardError(error: unknown): LoopGuardError {
  if (error instanceof LoopGuardError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new RunError('run_error', `Tick failed: ${message}`, { cause: error });
}
