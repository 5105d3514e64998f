import { dollars } from '../kernel/money.js';
import type { CostOf } from './priceBook.js';
import type { SpendLedger, SpendTotals } from './SpendLedger.js';
import type { ResolvedSpendOptions, SpendCaps } from './spendOptions.js';
import type { UsageRecord } from './usageRecord.js';

/** The scopes a budget applies to. */
export type SpendScopeKind = 'session' | 'task' | 'project_day';

/** One scope being guarded: its ledger and its caps. */
export interface SpendScope {
  /** Which budget of the options applies. */
  kind: SpendScopeKind;
  /** How messages name it: `this session`, `this run`, `task T1`, `this project today`. */
  label: string;
  /** What it has spent. */
  ledger: SpendLedger;
}

/** Why the guard spoke: a share of a cap reached, a cap reached, or the burn rate. */
export type SpendReason = 'share' | 'cap' | 'burn_rate';

/** A warning or a stop, with the numbers behind it. */
export interface SpendVerdict {
  /** `warn`: tell the agent; `stop`: stop it the way its door stops a loop. */
  action: 'warn' | 'stop';
  reason: SpendReason;
  scope: SpendScopeKind;
  /** The text the agent (and the user) reads. */
  message: string;
  /** What was spent, the caps, and the burn rate where it spoke: the entry's evidence. */
  evidence: {
    spent: SpendTotals;
    caps: SpendCaps;
    warnAt: number;
    burnRate?: { tokensPerMinute: number; costUsdPerMinute: number; forMinutes: number };
  };
}

/**
 * Counts a reply in every scope (each scope's ledger counts a reply id once).
 * @returns whether any scope counted it (false for a reply already counted everywhere).
 */
export function addUsage(
  scopes: readonly SpendScope[],
  record: UsageRecord,
  costOf: CostOf,
  now: number,
): boolean {
  let counted = false;
  for (const scope of scopes) counted = scope.ledger.add(record, costOf, now) || counted;
  return counted;
}

/**
 * Judges every scope against its caps, the share that warns and (for the session) the burn rate.
 * A stop wins over a warning; a warning is given once per scope (a burn-rate warning again after
 * the rate fell back under its threshold).
 * @returns the verdict, or `undefined` to go on.
 */
export function checkSpend(
  scopes: readonly SpendScope[],
  options: ResolvedSpendOptions,
  now: number,
): SpendVerdict | undefined {
  let warning: SpendVerdict | undefined;
  for (const scope of scopes) {
    const caps = capsOf(options, scope.kind);
    const spent = scope.ledger.totals;
    const evidence = () => ({
      spent: { ...spent, unpricedModels: [...spent.unpricedModels] },
      caps,
      warnAt: options.warnAt,
    });
    const share = shareOf(spent, caps);
    if (share >= 1)
      return {
        action: 'stop',
        reason: 'cap',
        scope: scope.kind,
        message: stopText(scope, spent, caps),
        evidence: evidence(),
      };
    if (warning === undefined && share >= options.warnAt && scope.ledger.warnOnce('share')) {
      warning = {
        action: 'warn',
        reason: 'share',
        scope: scope.kind,
        message: warnText(scope, spent, caps, share),
        evidence: evidence(),
      };
    }
    const burn = scope.kind === 'session' ? options.burnRate : undefined;
    if (burn === undefined) continue;
    const rate = scope.ledger.rate(burn.forMinutes, now);
    const over =
      (burn.tokensPerMinute !== undefined && rate.tokensPerMinute >= burn.tokensPerMinute) ||
      (burn.costUsdPerMinute !== undefined && rate.costUsdPerMinute >= burn.costUsdPerMinute);
    if (!over) {
      scope.ledger.rearm('burn_rate');
      continue;
    }
    const verdict: SpendVerdict = {
      action: burn.action,
      reason: 'burn_rate',
      scope: scope.kind,
      message: burnText(scope, rate, burn),
      evidence: { ...evidence(), burnRate: { ...rate, forMinutes: burn.forMinutes } },
    };
    if (burn.action === 'stop') return verdict;
    if (warning === undefined && scope.ledger.warnOnce('burn_rate')) warning = verdict;
  }
  return warning;
}

/** The caps of a scope kind. */
function capsOf(options: ResolvedSpendOptions, kind: SpendScopeKind): SpendCaps {
  const caps = kind === 'session' ? options.session : kind === 'task' ? options.task : options.projectDay;
  return caps ?? {};
}

/**
 * The larger share of a cap spent (0 with no cap), rounded to a millionth: dollars are sums of
 * binary fractions, and $0.04 of $0.05 must read as 80 %, not 79.99… %.
 */
function shareOf(spent: SpendTotals, caps: SpendCaps): number {
  const share = Math.max(
    caps.maxTokens === undefined ? 0 : spent.tokens / caps.maxTokens,
    caps.maxCostUsd === undefined ? 0 : spent.costUsd / caps.maxCostUsd,
  );
  return Math.round(share * 1e6) / 1e6;
}

export { dollars } from '../kernel/money.js';

/** `1,640,000` */
function count(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

/** What was spent against the caps: `$4.10 of $5.00` and/or `1,640,000 of 2,000,000 tokens`. */
function spentText(spent: SpendTotals, caps: SpendCaps): string {
  const parts: string[] = [];
  if (caps.maxCostUsd !== undefined) parts.push(`${dollars(spent.costUsd)} of ${dollars(caps.maxCostUsd)}`);
  if (caps.maxTokens !== undefined) parts.push(`${count(spent.tokens)} of ${count(caps.maxTokens)} tokens`);
  return parts.join(' and ');
}

/** The sentence about tokens without a price: their cost is unknown, never $0 (`''` when every token is priced). */
export function unpricedText(spent: SpendTotals): string {
  if (spent.unpricedTokens === 0) return '';
  return ` The cost of ${count(spent.unpricedTokens)} tokens is unknown (no price for ${spent.unpricedModels.join(', ')}): it is not in the dollars above.`;
}

function warnText(scope: SpendScope, spent: SpendTotals, caps: SpendCaps, share: number): string {
  return (
    `loopguard: you have ${caps.maxCostUsd === undefined ? 'used' : 'spent'} ${spentText(spent, caps)} on ${scope.label} (${Math.floor(share * 100)} %).` +
    ` loopguard stops ${scope.label} at the budget: finish the essential work first.${caps.maxCostUsd === undefined ? '' : unpricedText(spent)}`
  );
}

function stopText(scope: SpendScope, spent: SpendTotals, caps: SpendCaps): string {
  return `loopguard: ${scope.label} reached its budget (${spentText(spent, caps)}); loopguard stopped it.${caps.maxCostUsd === undefined ? '' : unpricedText(spent)}`;
}

function burnText(
  scope: SpendScope,
  rate: { tokensPerMinute: number; costUsdPerMinute: number },
  burn: NonNullable<ResolvedSpendOptions['burnRate']>,
): string {
  const parts: string[] = [];
  if (burn.tokensPerMinute !== undefined)
    parts.push(`${count(rate.tokensPerMinute)} tokens a minute (alarm at ${count(burn.tokensPerMinute)})`);
  if (burn.costUsdPerMinute !== undefined)
    parts.push(`${dollars(rate.costUsdPerMinute)} a minute (alarm at ${dollars(burn.costUsdPerMinute)})`);
  return (
    `loopguard: ${scope.label} is spending ${parts.join(' and ')} over the last ${burn.forMinutes} minutes.` +
    (burn.action === 'stop'
      ? ' loopguard stopped it.'
      : ' A loop often shows as a rate before it shows as a repeat: check that each step makes progress.')
  );
}
