/**
 * The one ordering rule for a task's attempts, shared by memory and every storage adapter: attempts
 * are ordered by timestamp, ties by arrival. So that arrival order and timestamp order never
 * disagree, an attempt is never stamped earlier than the task's newest attempt: when the clock
 * steps back (NTP, a VM resumed, a test clock), the newest timestamp is used again.
 *
 * @param now - the clock's time, epoch ms.
 * @param newest - the timestamp of the task's newest attempt, if any.
 * @example nextAttemptTimestamp(500, 1_000); // 1000: the clock went back, the order holds
 */
export function nextAttemptTimestamp(now: number, newest: number | undefined): number {
  return newest !== undefined && newest > now ? newest : now;
}
