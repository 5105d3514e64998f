import type { Attempt } from '../model/attempt.js';
import type { Storage } from '../storage/storage.js';
import type { DetectorSettings } from './detectorSettings.js';
import { type RunState, runsOf, stepRuns } from './loopRules.js';
import { runSync } from './portCall.js';
import { findTaskCycle, type TaskCycle } from './taskCycle.js';
import { grantActive, storedCycle } from './workflows.js';

/** The runner's view of one task: the attempts inside the window and the runs they end with. */
export interface TaskTrack {
  /** The task. */
  taskId: string;
  /** Its attempts, oldest first (those before `head` have left the window). */
  attempts: Attempt[];
  /** Index of the oldest attempt still inside the window. */
  head: number;
  /** Timestamp of `attempts[head]` (Infinity when none), kept so that the window check touches no attempt. */
  oldest: number;
  /** The runs of same-status attempts at the window's end; `undefined` until first computed. */
  runs: RunState | undefined;
  /** Whether an `unblock_authority` grant is in force for the task. */
  grantActive: boolean;
}

/**
 * The synchronous runner's in-memory run cache: per task, the attempts inside the window and the
 * run lengths they end with (kept incrementally, so judging costs the same whatever the history),
 * and the newest attempts across tasks for the cross-task cycle rule.
 */
export class RunCache {
  private readonly tracks = new Map<string, TaskTrack>();
  /** The track used last: `detectLoop` right after `recordAttempt` of the same task skips a lookup. */
  private lastTrack: TaskTrack | undefined;
  private sweep: Iterator<[string, TaskTrack]> | undefined;
  /** The newest attempts across tasks (at most `maxCycleTasks × cycleRounds`), for cross-task cycles. */
  private recent: Attempt[] = [];

  /**
   * @param storage - where a task's attempts are loaded from the first time it is seen.
   * @param settings - the runner's settings (window, signatures, cycle rule).
   */
  constructor(
    private readonly storage: Storage,
    private readonly settings: DetectorSettings,
  ) {}

  /**
   * The task's track, loaded from storage when new (or on every call with `sharedStorage`).
   * With `keep: false` (a read that records nothing), a task with no attempts in the window and no
   * grant is judged from a track that is not kept: judging an unknown task allocates nothing that
   * outlives the call, however many distinct ids are asked about.
   */
  trackFor(taskId: string, now: number, keep = true): TaskTrack {
    const { options } = this.settings;
    let track = this.lastTrack?.taskId === taskId ? this.lastTrack : this.tracks.get(taskId);
    const cutoff = now - options.attemptWindow;
    if (track === undefined || options.sharedStorage) {
      const attempts = this.storage.attempts.listSince(taskId, cutoff);
      track = {
        taskId,
        attempts,
        head: 0,
        oldest: attempts[0]?.timestamp ?? Number.POSITIVE_INFINITY,
        runs: runsOf(attempts, options.blockerSignatures),
        grantActive: runSync(grantActive(taskId), this.storage),
      };
      if (!keep && attempts.length === 0 && !track.grantActive && !this.tracks.has(taskId)) return track;
      this.tracks.set(taskId, track);
    } else if (track.oldest < cutoff) {
      expire(track, cutoff);
    }
    this.lastTrack = track;
    return track;
  }

  /** Adds a stored attempt to its track and to the newest attempts across tasks. */
  add(track: TaskTrack, attempt: Attempt): void {
    if (track.attempts.push(attempt) - track.head === 1) track.oldest = attempt.timestamp;
    track.runs = stepRuns(track.runs, attempt, this.settings.options.blockerSignatures);
    const { cycle } = this.settings;
    if (cycle !== null) {
      this.recent.push(attempt);
      const keep = cycle.cycleRounds * cycle.maxCycleTasks;
      if (this.recent.length > keep) this.recent.splice(0, this.recent.length - keep);
    }
  }

  /** Starts the task afresh after a recovery (its attempts were cleared), with or without a grant. */
  restart(taskId: string, grantActive: boolean): void {
    const attempts: Attempt[] = [];
    this.tracks.set(taskId, {
      taskId,
      attempts,
      head: 0,
      oldest: Number.POSITIVE_INFINITY,
      runs: undefined,
      grantActive,
    });
  }

  /**
   * The cross-task cycle of this process's newest attempts that includes `taskId`, if any; with
   * `sharedStorage`, of the newest stored attempts (every process's).
   */
  cycleOf(taskId: string, now: number): TaskCycle | null {
    const { cycle: options } = this.settings;
    if (options === null) return null;
    const since = now - this.settings.options.attemptWindow;
    if (this.settings.options.sharedStorage)
      return runSync(storedCycle(taskId, since, options), this.storage);
    const cycle = findTaskCycle(
      this.recent.filter((a) => a.timestamp >= since),
      options,
    );
    return cycle?.tasks.includes(taskId) ? cycle : null;
  }

  /** Forgets a bounded number of tasks idle since before `cutoff` (a grant keeps a task). */
  forgetIdle(cutoff: number): void {
    for (let i = 0; i < 64; i++) {
      this.sweep ??= this.tracks.entries();
      const next = this.sweep.next();
      if (next.done) {
        this.sweep = undefined;
        break;
      }
      const [taskId, track] = next.value;
      const newest = track.attempts[track.attempts.length - 1];
      if (!track.grantActive && (newest === undefined || newest.timestamp < cutoff)) this.forget(taskId);
    }
  }

  /** Drops the task's track from memory. */
  forget(taskId: string): void {
    this.tracks.delete(taskId);
    if (this.recent.some((a) => a.taskId === taskId))
      this.recent = this.recent.filter((a) => a.taskId !== taskId);
    if (this.lastTrack?.taskId === taskId) this.lastTrack = undefined;
  }
}

/** Drops the track's attempts older than `cutoff`. */
function expire(track: TaskTrack, cutoff: number): void {
  const { attempts } = track;
  while (track.head < attempts.length && (attempts[track.head] as Attempt).timestamp < cutoff) track.head++;
  if (track.head > 1024 && track.head * 2 > attempts.length) {
    attempts.splice(0, track.head);
    track.head = 0;
  }
  track.oldest = attempts[track.head]?.timestamp ?? Number.POSITIVE_INFINITY;
}
