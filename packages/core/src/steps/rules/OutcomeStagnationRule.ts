import { z } from 'zod';
import { lazySchema } from '../../kernel/optionSchemas.js';
import type { StepHistory } from '../history/stepHistory.js';
import { parseSnapshotPart, type SnapshotJson } from '../options/stepSnapshot.js';
import { otherCopy, probeDiagnosis } from '../probes/probeDiagnosis.js';
import type { JudgedEvent, RuleHit, StepRule } from './StepRule.js';

/**
 * The work changes, the result does not. A probe (a command the agent runs again to see whether its
 * change worked: `python reproduce.py`, `pytest tests/test_x.py`) gives the same normalised result
 * `repeats` times in a row while the agent changes the code between its runs. Every edit shows new
 * text, so the rules that judge each turn by what it shows see progress; this rule judges by what
 * the probe shows, however new each edit is.
 *
 * After the hit, the evidence needed again is smaller: any probe run again after a change, with the
 * same result as its previous run, hits again (the nudge did not help), until some probe's result
 * changes. The detector's ladder turns the first hit into a nudge and the next into a stop.
 *
 * Guesses: the same result after `repeats − 1` rounds in a row of changes to the code under test
 * with nothing learned between, wherever the changes went (a new place is a new hypothesis only
 * when something read or run since the same result taught it).
 *
 * The verdict ceiling: the same key lines (the final error or assertion, the failing tests) after
 * `verdictCeiling` changes in a row is a loop whatever else the output printed (the agent's debug
 * prints, values around the error) and whatever was read or tried between; once nudged, only key
 * lines that move (or the debug output the agent added to the code under test appearing) end it.
 *
 * A new question (see `asksAnew`: the agent's own script changed, or a probe runs for the first
 * time) whose result moved is not news: after the hit the loop is not over, but it must show again
 * on the new question (the evidence of a first hit), and by a change to the code under test; then
 * it hits again (a stop, not a second nudge). Only the code's changes can answer the nudge.
 *
 * What stays progress: a probe whose result changes (a new error, a different failing test, a count
 * that moves: only noise such as line numbers, timings, addresses and pids is masked); each round
 * fixing a different error; one command over different files (each is a different probe).
 *
 * @example new OutcomeStagnationRule(3, 3, 4) // edit, `python t.py` → "None"; edit, same; edit, same: hit
 */
export class OutcomeStagnationRule implements StepRule {
  readonly loopType = 'outcome_stagnation' as const;
  /** {@link ProbeLedger.news} at the last hit (`-1`: none): the rule stays armed until a probe shows a new result. */
  private armedAt = -1;
  /** {@link ProbeLedger.questions} at the last hit: a new question since disarms the rule, not the nudge. */
  private questionsAt = 0;

  /**
   * @param repeats - runs of one probe with one result, changes between and nothing learned (stale rounds, or guesses at new places), that make a loop (integer ≥ 2).
   * @param ceiling - rounds in a row of a change and the same result, whatever was read between, that make a loop (integer ≥ 2).
   * @param verdictCeiling - rounds in a row of a change and the same key lines, whatever else the output printed or the turns between did, that make a loop (integer ≥ 2).
   */
  constructor(
    private readonly repeats: number,
    private readonly ceiling: number,
    private readonly verdictCeiling: number,
  ) {}

  judge(event: JudgedEvent, history: StepHistory): RuleHit | null {
    if (event.kind !== 'turn') return null;
    const { record, staleRound, blindRound, verdictNews, changesSincePrevious, tried } =
      history.probes.latest;
    if (record === undefined || changesSincePrevious === 0) return null;
    // The verdict ceiling: the same key lines after every change, whatever else the output printed.
    const verdictHit = !verdictNews && record.verdictRounds >= this.verdictCeiling;
    if (!blindRound && !verdictHit) return null;
    // After the hit, only a probe result not shown before disarms the rule: any further round of a
    // change and the same result hits again (the nudge did not help).
    const sinceHit = this.armedAt === history.probes.news;
    const armed = sinceHit && this.questionsAt === history.probes.questions;
    // A new question since the hit: the loop shows again only by a change to the code under test.
    if (sinceHit && !armed && !tried) return null;
    const hit =
      verdictHit ||
      armed ||
      record.blindRounds >= this.ceiling ||
      (staleRound && record.staleRounds >= this.repeats - 1) ||
      // Changes to the code under test with nothing learned since the same result are guesses,
      // wherever they went: a new place is a new hypothesis only when something taught it.
      (blindRound && record.guessRounds >= this.repeats - 1) ||
      // Evidence that the edits cannot take effect (the output runs another copy of an edited file)
      // counts every round of a change and the same result, whatever was read or tried between.
      // Asked last, and only with rounds enough: the output's paths are a pattern over its text.
      (record.changedRounds >= this.repeats - 1 &&
        otherCopy(record.outputPaths(), history.probes.edited) !== undefined);
    if (!hit) return null;
    const outputPaths = record.outputPaths();
    this.armedAt = history.probes.news;
    this.questionsAt = history.probes.questions;
    const changes = history.probes.changes - record.changesAtStart;
    const edits = history.probes.changesSince(record.since);
    const firstRun = record.runs[0];
    const advice = probeDiagnosis(
      outputPaths,
      edits.flatMap((edit) => edit.paths),
    );
    const evidence = [
      ...(firstRun === undefined ? [] : [firstRun]),
      ...edits.slice(-3).map((edit) => edit.evidence),
      ...record.runs.slice(1),
    ];
    return {
      loopType: this.loopType,
      repeats: record.streak,
      since: record.since,
      evidence,
      summary: verdictHit
        ? `the last ${record.verdictRounds} changes did not change what \`${record.label}\` reports: ${record.verdictRounds + 1} runs in a row ended with the same error or failing tests, whatever else they printed`
        : `the last ${changes === 1 ? 'change' : `${changes} changes`} did not change the output of \`${record.label}\`: ${record.streak} runs gave the same result`, // the message adds since which call
      ...(advice === undefined ? {} : { advice }),
      progress: verdictHit ? 'verdict' : 'probe',
      // Shown again after a new question: the loop nudged before goes on.
      nudged: sinceHit && !armed,
    };
  }

  /** The rule's state: when it last hit, on the ledger's counts of new probe results and new questions. */
  snapshot(): SnapshotJson {
    return { armedAt: this.armedAt, questionsAt: this.questionsAt };
  }

  /** Replaces the state with one {@link snapshot} returned. @throws InvalidInputError naming the field. */
  restore(state: unknown): void {
    const parsed = parseSnapshotPart(stateSchema, state, `snapshot.rules.${this.loopType}`);
    this.armedAt = parsed.armedAt;
    this.questionsAt = parsed.questionsAt;
  }
}

// built on first use (see parseSnapshotPart)
const stateSchema = lazySchema(() =>
  z.object({
    armedAt: z.number().int().min(-1),
    questionsAt: z.number().int().nonnegative().default(0),
  }),
);
