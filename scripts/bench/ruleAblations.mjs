// The rule families of the step detector, each as a change that mutes it in a fresh detector, and
// the outcomes the ablation benches compare (scripts/bench-steps-ablation.mjs,
// scripts/bench-steps-halves.mjs). The ablations live here, never in the product: the product has no
// switch per rule (the rule classes are read from their built files: they are not exported).
import { StepLoopDetector } from '../../packages/core/dist/entries/steps.js';
import { otherCopy, probeDiagnosis } from '../../packages/core/dist/steps/probes/probeDiagnosis.js';
import { OutcomeStagnationRule } from '../../packages/core/dist/steps/rules/OutcomeStagnationRule.js';
import { SameErrorRule } from '../../packages/core/dist/steps/rules/SameErrorRule.js';
import { UnseenPrintsRule } from '../../packages/core/dist/steps/rules/UnseenPrintsRule.js';
import { replay } from './labelledLoops.mjs';

/** A rule whose hits are dropped; it still judges every event it is given (its state moves as in the product). */
export function muted(rule) {
  const silent = Object.create(rule);
  silent.judge = (event, history) => {
    rule.judge(event, history);
    return null;
  };
  return silent;
}

/**
 * `OutcomeStagnationRule` with some of its ways to fire left out (`off`: a set of `stale`, `guess`,
 * `ceiling`, `verdict`, `otherCopy`, `armed`). Its judge is the product's, copied with the switches;
 * `checkCopy` below replays the copy with nothing off against the product's on every corpus.
 */
export class AblatedOutcomeRule extends OutcomeStagnationRule {
  constructor(off) {
    super(3, 3, 4);
    this.off = off;
  }

  judge(event, history) {
    const off = this.off;
    if (event.kind !== 'turn') return null;
    const { record, staleRound, blindRound, verdictNews, changesSincePrevious, tried } =
      history.probes.latest;
    if (record === undefined || changesSincePrevious === 0) return null;
    const verdictHit = !off.has('verdict') && !verdictNews && record.verdictRounds >= this.verdictCeiling;
    if (!blindRound && !verdictHit) return null;
    const sinceHit = this.armedAt === history.probes.news;
    const armed = !off.has('armed') && sinceHit && this.questionsAt === history.probes.questions;
    if (!off.has('armed') && sinceHit && !armed && !tried) return null;
    const outputPaths = record.outputPaths();
    const cannotWork = !off.has('otherCopy') && otherCopy(outputPaths, history.probes.edited) !== undefined;
    const hit =
      verdictHit ||
      armed ||
      (cannotWork && record.changedRounds >= this.repeats - 1) ||
      (!off.has('ceiling') && record.blindRounds >= this.ceiling) ||
      (!off.has('stale') && staleRound && record.staleRounds >= this.repeats - 1) ||
      (!off.has('guess') && blindRound && record.guessRounds >= this.repeats - 1);
    if (!hit) return null;
    this.ways = [
      verdictHit && 'verdict',
      armed && 'armed',
      cannotWork && record.changedRounds >= this.repeats - 1 && 'otherCopy',
      record.blindRounds >= this.ceiling && 'ceiling',
      staleRound && record.staleRounds >= this.repeats - 1 && 'stale',
      blindRound && record.guessRounds >= this.repeats - 1 && 'guess',
    ].filter(Boolean);
    this.armedAt = history.probes.news;
    this.questionsAt = history.probes.questions;
    const advice = probeDiagnosis(
      outputPaths,
      history.probes.changesSince(record.since).flatMap((edit) => edit.paths),
    );
    return {
      loopType: this.loopType,
      repeats: record.streak,
      since: record.since,
      evidence: [],
      summary: 'ablated',
      ...(advice === undefined ? {} : { advice }),
      progress: verdictHit ? 'verdict' : 'probe',
      nudged: !off.has('armed') && sinceHit && !armed,
    };
  }
}

/** `SameErrorRule` without one of its ways: `refusal` (a tool's refusal streak), `failure` (the same class or action failing), `retry` (the same call since the last change). */
export class AblatedSameErrorRule extends SameErrorRule {
  constructor(off) {
    super(3, 3, 2);
    this.off = off;
  }

  judge(event, history) {
    const seen =
      this.off === 'refusal'
        ? new Proxy(history, {
            get: (target, key) =>
              key === 'rejections' ? { of: () => undefined } : Reflect.get(target, key, target),
          })
        : history;
    return super.judge(event, seen);
  }

  sameFailure(turn, history, progress) {
    return this.off === 'failure' ? null : super.sameFailure(turn, history, progress);
  }

  retried(turn, history) {
    return this.off === 'retry' ? null : super.retried(turn, history);
  }
}

/** `UnseenPrintsRule` without its prints (`prints`) or without its searches (`search`). */
export class AblatedUnseenPrintsRule extends UnseenPrintsRule {
  constructor(off) {
    super(3);
    this.off = off;
  }

  judge(event, history) {
    const hit = super.judge(event, history);
    if (hit === null) return null;
    const search = history.unseenPrints.latest.pattern !== undefined;
    return (this.off === 'search') === search ? null : hit;
  }
}

const byName = (name) => (rule) => rule.constructor.name === name;
const replaceRule = (which, make) => (rules) => rules.map((rule) => (which(rule) ? make(rule) : rule));
const muteRule = (name) => ({
  turn: replaceRule(byName(name), muted),
  message: replaceRule(byName(name), muted),
});
export const outcomeOff = (...off) => ({
  turn: replaceRule(byName('OutcomeStagnationRule'), () => new AblatedOutcomeRule(new Set(off))),
});

/** A change to the probe ledger of a fresh detector (an instance method or field replaced). */
const ledger = (change) => ({ ledger: change });

/** The families, as changes to the detector's turn and message rules (or to its probe ledger). */
export const ABLATIONS = {
  'outcome stagnation (all)': muteRule('OutcomeStagnationRule'),
  'outcome: stale rounds': outcomeOff('stale'),
  'outcome: guesses': outcomeOff('guess'),
  'outcome: blind-round ceiling': outcomeOff('ceiling'),
  'outcome: verdict ceiling': outcomeOff('verdict'),
  'outcome: another copy runs': outcomeOff('otherCopy'),
  'outcome: armed after nudge / new question': outcomeOff('armed'),
  oscillation: muteRule('OscillationRule'),
  cycle: muteRule('CycleRule'),
  'rejected turn': muteRule('RejectedTurnRule'),
  'same error (all)': muteRule('SameErrorRule'),
  'same error: refusal streak': {
    turn: replaceRule(byName('SameErrorRule'), () => new AblatedSameErrorRule('refusal')),
  },
  'same error: same class / action failing': {
    turn: replaceRule(byName('SameErrorRule'), () => new AblatedSameErrorRule('failure')),
  },
  'same error: same call since last change': {
    turn: replaceRule(byName('SameErrorRule'), () => new AblatedSameErrorRule('retry')),
  },
  'growing output': muteRule('GrowingOutputRule'),
  'repeated action': muteRule('RepeatedActionRule'),
  'guessed reads': muteRule('GuessedReadsRule'),
  'unseen prints (all)': muteRule('UnseenPrintsRule'),
  'unseen prints: prints': {
    turn: replaceRule(byName('UnseenPrintsRule'), () => new AblatedUnseenPrintsRule('prints')),
  },
  'unseen prints: searches': {
    turn: replaceRule(byName('UnseenPrintsRule'), () => new AblatedUnseenPrintsRule('search')),
  },
  'near duplicate': muteRule('NearDuplicateRule'),
  stagnation: muteRule('StagnationRule'),
  chanting: muteRule('ChantingRule'),
  'repeated message': muteRule('RepeatedMessageRule'),
  'ledger: a result that comes back, noise masked': ledger((probes) => {
    probes.comesBack = () => false;
  }),
  'ledger guard: a read run again that shows something else is news': ledger((probes) => {
    probes.reread = () => false;
  }),
  'ledger guard: a rewrite of its own print is no attempt': ledger((probes) => {
    probes.agentPrints = Object.assign([], { push: () => 0 });
  }),
  'ledger: news is what the result says (noise, own words masked)': ledger((probes) => {
    probes.saysSame = (previous, run) => previous.result === run.result;
  }),
  "ledger: a read of the agent's own edits teaches nothing": ledger((probes) => {
    probes.teaches = (run) => run.kind !== 'change';
  }),
  "ledger: the agent's own scripts are not the code under test": ledger((probes) => {
    probes.isOwn = () => false;
    probes.makesOwn = () => false;
  }),
};

/** A `create()` for `replay`: a default detector with the ablation applied to its rules. */
export function creator(ablation) {
  return () => {
    const detector = new StepLoopDetector({});
    if (ablation?.turn) detector.turnRules = ablation.turn(detector.turnRules);
    if (ablation?.message) detector.messageRules = ablation.message(detector.messageRules);
    if (ablation?.ledger) ablation.ledger(detector.history.probes);
    return { observe: (step) => detector.observe(step).action };
  };
}

export const family = (key) => key.split('/').pop().split('__')[0];

/** Per labelled loop: the stop in its window (or undefined); false stops; hard negatives stopped; resolved runs flagged. */
export function outcomes(create, corpus) {
  const results = new Map(corpus.runs.map((run) => [run.key, replay(create, run.steps)]));
  const caught = new Map();
  for (const loop of corpus.loops) {
    const key = `${loop.model}/${loop.id}@${loop.certainAt}`;
    const { stops } = results.get(`${loop.model}/${loop.id}`);
    const stop = stops.find((i) => i >= loop.certainAt - 2 && i <= loop.loopEnd + 3);
    if (stop !== undefined) caught.set(key, stop - loop.certainAt);
  }
  const falseStops = new Set();
  const hard = new Set();
  const flaggedResolved = new Set();
  for (const run of corpus.runs) {
    const { stops, nudges } = results.get(run.key);
    const loops = corpus.loops.filter((l) => `${l.model}/${l.id}` === run.key);
    const negatives = corpus.hardNegatives.filter((n) => `${n.model}/${n.id}` === run.key);
    for (const stop of stops) {
      if (negatives.some((n) => stop >= n.start && stop <= n.end)) continue;
      if (loops.some((l) => stop >= l.loopStart && stop <= l.loopEnd + 3)) continue;
      falseStops.add(run.key);
    }
    for (const n of negatives)
      if (stops.some((s) => s >= n.start && s <= n.end)) hard.add(`${run.key}@${n.start}`);
    if (run.resolved && stops.length + nudges.length > 0) flaggedResolved.add(run.key);
  }
  return { caught, falseStops, hard, flaggedResolved };
}

/** Gemini dev runs: resolved runs stopped, resolved runs nudged or stopped, unresolved runs flagged. */
export function geminiOutcomes(create, runs) {
  const stopped = new Set();
  const flagged = new Set();
  const unresolvedFlagged = new Set();
  for (const run of runs) {
    const { stops, nudges } = replay(create, run.steps);
    const any = stops.length + nudges.length > 0;
    if (run.resolved && stops.length > 0) stopped.add(run.id);
    if (run.resolved && any) flagged.add(run.id);
    if (!run.resolved && any) unresolvedFlagged.add(run.id);
  }
  return { stopped, flagged, unresolvedFlagged };
}

/** Injected loops (bench-steps.mjs's seed) detected, nudge or stop, between their start and end: their ids. */
export function injectedOutcomes(create, cases) {
  const caught = new Set();
  cases.forEach((c, n) => {
    const detector = create();
    for (let i = 0; i < c.steps.length; i++) {
      if (detector.observe(c.steps[i]) === 'continue' || i < c.start) continue;
      if (i <= c.end) caught.add(n);
      break;
    }
  });
  return caught;
}

export const minus = (a, b) => [...a].filter((x) => !b.has(x));
export const median = (values) => {
  if (values.length === 0) return 'n/a';
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.floor((sorted.length - 1) / 2)];
};

/**
 * The nudges and stops of the whole detector over one run, a fresh detector after each stop, each
 * with the rule that named it (outcome stagnation as `outcome: ` and the ways that held at its hit):
 * `[{ step, action, rule }]`.
 */
export function namedVerdicts(steps) {
  let last;
  const make = () => {
    const detector = new StepLoopDetector({});
    const wrap = (rule) => {
      const judge = rule.judge.bind(rule);
      const proxy = Object.create(rule);
      proxy.judge = (event, history) => {
        const hit = judge(event, history);
        if (hit !== null)
          last =
            rule instanceof AblatedOutcomeRule ? `outcome: ${rule.ways.join('+')}` : rule.constructor.name;
        return hit;
      };
      return proxy;
    };
    detector.turnRules = detector.turnRules
      .map((rule) =>
        rule.constructor.name === 'OutcomeStagnationRule' ? new AblatedOutcomeRule(new Set()) : rule,
      )
      .map(wrap);
    detector.messageRules = detector.messageRules.map(wrap);
    return detector;
  };
  let detector = make();
  const verdicts = [];
  for (let i = 0; i < steps.length; i++) {
    const { action } = detector.observe(steps[i]);
    if (action === 'continue') continue;
    verdicts.push({ step: i, action, rule: last });
    if (action === 'stop') detector = make();
  }
  return verdicts;
}
