import { loopKindWords } from './loopKindWords.js';

/**
 * A `loopguard run`'s stored status as a user reads it (story56): `budget_spent` (its iterations,
 * its time or its spend budget ran out: the name reads money alone) is `limit reached`; the other
 * names (`running`, `paused`, `aborted`, `completed`, `interrupted`, `failed`) are words already.
 * @example runStatusWords('budget_spent'); // 'limit reached'
 */
export function runStatusWords(status: string): string {
  return status === 'budget_spent' ? 'limit reached' : status.replaceAll('_', ' ');
}

/**
 * Which limit a `loopguard run` stopped at, read from its stored reason (the guard's message, seed
 * 001's words: `Iteration 11 exceeds maximum of 10. …`, `max_runtime (15min) exceeded`), so that
 * `run`'s last line and every door name the same one; `its iteration or time limit` when the reason
 * names neither.
 * @example runLimitWords('Iteration 11 exceeds maximum of 10.'); // 'its iteration limit of 10'
 * @example runLimitWords('max_runtime (15min) exceeded'); // 'its time limit of 15 min'
 */
export function runLimitWords(reason: string | null): string {
  const iterations = /^Iteration \d+ exceeds maximum of (\d+)\b/.exec(reason ?? '');
  if (iterations !== null) return `its iteration limit of ${iterations[1]}`;
  const minutes = /^max_runtime \((\d+(?:\.\d+)?)min\) exceeded/.exec(reason ?? '');
  if (minutes !== null) return `its time limit of ${minutes[1]} min`;
  return 'its iteration or time limit';
}

/**
 * A `loopguard run`'s stored reason as a user reads it (polish65): the breaker writes its signal's
 * name first (`no_file_changes: no files changed …`), after the blocked task of an aborted run
 * (`task T1 blocked: no_file_changes: …`), and the words after it say the same; the name goes, the
 * rest is kept, a mid-run stop's loop kind in words (`same error`, sess68). `status`, `runs`, the
 * dashboard and `run`'s lines read it so; `--json` keeps the stored reason.
 * @example runReasonWords('no_file_changes: no files changed (3 in a row, threshold 3)'); // 'no files changed (3 in a row, threshold 3)'
 */
export function runReasonWords(reason: string): string {
  return reason
    .replace(/^(task .*? blocked: )?[a-z]+(?:_[a-z]+)+: /, '$1')
    .replace(LOOP_STOP_KIND, (_, head: string, kind: string) => `${head}${loopKindWords(kind)}`);
}

/** The loop kind a mid-run stop's reason names (`stopped mid-run by the loop detector: same_error`): said in words (sess68). */
const LOOP_STOP_KIND = /(stopped mid-run by the loop detector: )(\w+)/;

/**
 * How to go on with a `loopguard run` that stopped short of its end (paused, aborted or
 * interrupted), in the words `run` says it then: ` (loopguard resume r1 continues it)`; `''` for the
 * others (a completed run, a limit reached, a run still going). `run`'s last line, `status`, the
 * dashboard and `runs` all say it so (polish66).
 * @example resumeHint('r1', 'paused'); // ' (loopguard resume r1 continues it)'
 */
export function resumeHint(runId: string, status: string): string {
  return status === 'paused' || status === 'aborted' || status === 'interrupted'
    ? ` (loopguard resume ${runId} continues it)`
    : '';
}
