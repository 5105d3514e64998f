import { formatUsd } from '../kernel/formatUsd.js';
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

/**
 * Why the guard spoke: a share of a cap reached, a cap reached, the burn rate, or a reply whose
 * cost is unknown under a budget in dollars (`onUnknownPrice`).
 */
export type SpendReason = 'share' | 'cap' | 'burn_rate' | 'unknown_price';

/** A warning or a stop, with the numbers behind it. */
export interface SpendVerdict {
  /** `warn`: tell the agent; `stop`: stop it the way its door stops a loop. */
  action: 'warn' | 'stop';
  /** Why it spoke. */
  reason: SpendReason;
  /** Whose budget: the session (or run), the task, or the project's day. */
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
 * Judges every scope against its caps, the share that warns, a cost it cannot know
 * (`onUnknownPrice`) and (for the session) the burn rate. A stop wins over a warning; a warning is
 * given once per scope (a burn-rate warning again after the rate fell back under its threshold).
 * A warning at the share names the unpriced tokens itself, so it stands for the unknown-price one.
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
    const burn = scope.kind === 'session' ? options.burnRate : undefined;
    const verdict = (action: 'warn' | 'stop', reason: SpendReason, message: string): SpendVerdict => ({
      action,
      reason,
      scope: scope.kind,
      message,
      evidence: {
        spent: { ...spent, unpricedModels: [...spent.unpricedModels] },
        caps,
        warnAt: options.warnAt,
      },
    });
    const share = shareOf(spent, caps);
    if (share >= 1) return verdict('stop', 'cap', stopText(scope, spent, caps));
    const blind =
      spent.unpricedTokens > 0 && (caps.maxCostUsd !== undefined || burn?.costUsdPerMinute !== undefined);
    if (blind && options.onUnknownPrice === 'stop')
      return verdict('stop', 'unknown_price', unknownPriceText(scope, spent, caps, 'stop'));
    if (warning === undefined && share >= options.warnAt && scope.ledger.warnOnce('share')) {
      warning = verdict('warn', 'share', warnText(scope, spent, caps, share));
      if (caps.maxCostUsd !== undefined && spent.unpricedTokens > 0) scope.ledger.warnOnce('unknown_price');
    }
    if (warning === undefined && blind && scope.ledger.warnOnce('unknown_price'))
      warning = verdict('warn', 'unknown_price', unknownPriceText(scope, spent, caps, 'warn'));
    if (burn === undefined) continue;
    const rate = scope.ledger.rate(burn.forMinutes, now);
    const over =
      (burn.tokensPerMinute !== undefined && rate.tokensPerMinute >= burn.tokensPerMinute) ||
      (burn.costUsdPerMinute !== undefined && rate.costUsdPerMinute >= burn.costUsdPerMinute);
    if (!over) {
      scope.ledger.rearm('burn_rate');
      continue;
    }
    const alarm = verdict(burn.action, 'burn_rate', burnText(scope, rate, burn));
    alarm.evidence.burnRate = { ...rate, forMinutes: burn.forMinutes };
    if (burn.action === 'stop') return alarm;
    if (warning === undefined && scope.ledger.warnOnce('burn_rate')) warning = alarm;
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

/** `1,640,000` */
function count(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

/** What was spent against the caps: `$4.10 of $5.00` and/or `1,640,000 of 2,000,000 tokens`. */
function spentText(spent: SpendTotals, caps: SpendCaps): string {
  const parts: string[] = [];
  if (caps.maxCostUsd !== undefined)
    parts.push(
      `${formatUsd(spent.costUsd, caps.maxCostUsd)} of ${formatUsd(caps.maxCostUsd, spent.costUsd)}`,
    );
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

/** The budget in dollars that cannot count every reply, and what loopguard does about it. */
function unknownPriceText(
  scope: SpendScope,
  spent: SpendTotals,
  caps: SpendCaps,
  action: 'warn' | 'stop',
): string {
  const budget =
    caps.maxCostUsd === undefined
      ? 'its spending alarm in dollars'
      : `its budget of ${formatUsd(caps.maxCostUsd)}`;
  return (
    `loopguard: ${scope.label} cannot be held to ${budget}: the cost of ${count(spent.unpricedTokens)} tokens is unknown` +
    ` (no price for ${spent.unpricedModels.join(', ')}), so they are not in the dollars it counts` +
    ` (${formatUsd(spent.costUsd)} so far). ` +
    (action === 'stop'
      ? 'loopguard stopped it (spend.onUnknownPrice: stop).'
      : 'loopguard goes on counting the dollars it can price (spend.onUnknownPrice: warn).') +
    ' Give the model a price in spend.prices to count it.'
  );
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
    parts.push(
      `${formatUsd(rate.costUsdPerMinute, burn.costUsdPerMinute)} a minute (alarm at ${formatUsd(burn.costUsdPerMinute, rate.costUsdPerMinute)})`,
    );
  return (
    `loopguard: ${scope.label} is spending ${parts.join(' and ')} over the last ${burn.forMinutes} minutes.` +
    (burn.action === 'stop'
      ? ' loopguard stopped it.'
      : ' A loop often shows as a rate before it shows as a repeat: check that each tool call makes progress.')
  );
}
