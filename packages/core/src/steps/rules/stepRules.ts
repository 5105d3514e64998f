import type { StepThresholds } from '../options/stepLoopDetectorOptions.js';
import { ChantingRule } from './ChantingRule.js';
import { CycleRule } from './CycleRule.js';
import { GrowingOutputRule } from './GrowingOutputRule.js';
import { GuessedReadsRule } from './GuessedReadsRule.js';
import { NearDuplicateRule } from './NearDuplicateRule.js';
import { OscillationRule } from './OscillationRule.js';
import { OutcomeStagnationRule } from './OutcomeStagnationRule.js';
import { RejectedTurnRule } from './RejectedTurnRule.js';
import { RepeatedActionRule } from './RepeatedActionRule.js';
import { RepeatedMessageRule } from './RepeatedMessageRule.js';
import { SameErrorRule } from './SameErrorRule.js';
import { StagnationRule } from './StagnationRule.js';
import type { StepRule } from './StepRule.js';
import { UnseenPrintsRule } from './UnseenPrintsRule.js';

/**
 * The rules judging turns, in order: the first hit names the loop. Outcome stagnation comes first
 * (it judges each probe run by the probe's own history, and its message names the probe and the
 * likely cause); then periodic rules (a turn
 * of a repeated cycle also recurs, and the cycle is the better name), rejected replies before the
 * errors they carry, growing output before the repeat it also is, the broadest (stagnation) last.
 */
export function turnRulesOf(t: StepThresholds): StepRule[] {
  return [
    new OutcomeStagnationRule(t.probeRepeats, t.probeCeiling, t.probeVerdictCeiling),
    new OscillationRule(t.oscillationRepeats, t.maxEvidence),
    new CycleRule(t.cycleRepeats, t.maxCycleLength, t.maxEvidence),
    new RejectedTurnRule(t.rejectedThreshold, t.rejectedStopThreshold),
    new SameErrorRule(t.sameErrorThreshold, t.verbatimThreshold, t.verbatimChangeThreshold),
    new GrowingOutputRule(t.repeatThreshold),
    new RepeatedActionRule(t.repeatThreshold, t.verbatimThreshold, t.verbatimChangeThreshold),
    new GuessedReadsRule(t.nearDuplicateThreshold),
    new UnseenPrintsRule(t.nearDuplicateThreshold),
    new NearDuplicateRule(t.nearDuplicateThreshold, t.nearDuplicateSimilarity),
    new StagnationRule(t.sameOutcomeThreshold, t.staleTurnThreshold),
  ];
}

/** The rules judging messages, in order: chanting, empty replies, the monologue. */
export function messageRulesOf(t: StepThresholds): StepRule[] {
  return [
    new ChantingRule(t.chantRepeats, t.chantShare),
    new RejectedTurnRule(t.rejectedThreshold, t.rejectedStopThreshold),
    new RepeatedMessageRule(t.messageRepeatThreshold, t.messageSimilarity),
  ];
}
