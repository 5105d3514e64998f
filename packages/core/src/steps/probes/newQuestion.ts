/**
 * Whether a probe result that moved answers a new question rather than the one the loop kept
 * asking: the probe ran for the first time (a new script, or a probe whose test file in the code
 * under test was edited), or the agent changed its own scripts since the probe's previous run (a
 * debug print added to its reproduce script, its harness rewritten, even beside a change to the
 * code under test). The answer moved because the question did: it says nothing of whether the
 * changes to the code under test moved anything (a result that holds the previous one whole while
 * the code changed too did not move: see `ProbeLedger.asksMore`). After an outcome nudge such a result does not end
 * the nudged loop; the loop must show again on the new question, by changes to the code under test
 * (see `OutcomeStagnationRule`).
 *
 * @param firstRun - the probe has no previous run to compare with.
 * @param lastOwnChange - the number of the newest change to the agent's own scripts (`0`: none).
 * @param changesAtPrevious - the changes made in the run before the probe's previous run.
 * @example asksAnew(false, 7, 6); // true: the agent's script changed since the previous run
 */
export function asksAnew(firstRun: boolean, lastOwnChange: number, changesAtPrevious: number): boolean {
  return firstRun || lastOwnChange > changesAtPrevious;
}
