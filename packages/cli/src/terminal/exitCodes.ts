/**
 * The exit codes of the `loopguard` command. Each outcome has its own code so that a pipeline
 * around the command can tell them apart (documented in docs/cli.md).
 * @example
 * if (code === EXIT_CODES.paused) notifySomeone();
 */
export const EXIT_CODES = {
  /** The command did what was asked (for `run`: the agent completed, with evidence when required). */
  ok: 0,
  /** A defect or an unexpected failure inside loopguard. */
  internalError: 1,
  /**
   * Bad usage or configuration: an unknown flag, a bad value, a missing or unreadable file, a
   * settings file `init` cannot read, edit or write.
   */
  usage: 2,
  /** The run paused for a person (stagnation with `--on-stagnation pause` and no terminal). */
  paused: 3,
  /** The run aborted on stagnation (`--on-stagnation abort`). */
  aborted: 4,
  /** The run spent its budget of iterations or runtime (`--max-iterations`, `--max-runtime`). */
  budgetSpent: 5,
  /**
   * The spend guard stopped the run: a budget in dollars or tokens reached, the burn-rate alarm with
   * `action: stop`, or a reply it could not price with `onUnknownPrice: stop` (docs/spend.md).
   */
  spendStopped: 6,
  /** `status --session <id>`: loopguard stopped the session (a loop stop, or a run's breaker or guards). */
  sessionStopped: 10,
  /** `status --session <id>`: the spend guard stopped the session. */
  sessionStoppedOnSpend: 11,
  /** Interrupted by the user (SIGINT). */
  interrupted: 130,
} as const;

/** One of the {@link EXIT_CODES} values. */
export type ExitCode = (typeof EXIT_CODES)[keyof typeof EXIT_CODES];
