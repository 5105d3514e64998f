/**
 * `@loopguard/core/spend`: the spend guard — usage records counted once per reply, ledgers per
 * scope (session, task, project day), budgets with a warning share and a stop, the burn-rate alarm,
 * and prices from the pricing library with per-model overrides.
 * @packageDocumentation
 */

export { formatUsd, formatUsdTotal } from '../kernel/formatUsd.js';
export {
  addUsage,
  checkSpend,
  type SpendReason,
  type SpendScope,
  type SpendScopeKind,
  type SpendVerdict,
  unpricedText,
} from '../spend/checkSpend.js';
export { ClaudeRunUsage } from '../spend/claudeRunUsage.js';
export { libraryCostOf, loadLibraryCost, type PriceLibrary } from '../spend/libraryCost.js';
export { type CostOf, type ModelPrice, priceBook } from '../spend/priceBook.js';
export { SpendGuard } from '../spend/SpendGuard.js';
export {
  MAX_BURN_MINUTES,
  MAX_REMEMBERED_REPLIES,
  SpendLedger,
  type SpendLedgerSnapshot,
  type SpendTotals,
} from '../spend/SpendLedger.js';
export { SPEND_TOPICS, spendEntry } from '../spend/spendEntry.js';
export {
  type BurnRateOptions,
  DEFAULT_BURN_MINUTES,
  DEFAULT_ON_UNKNOWN_PRICE,
  DEFAULT_SPEND_WARN_AT,
  parseSpendOptions,
  type ResolvedSpendOptions,
  type SpendCaps,
  type SpendOptions,
  spendGuardOn,
  spendOptionsSchema,
} from '../spend/spendOptions.js';
export { anthropicUsage, tokensOf, type UsageRecord, usageRecordOf } from '../spend/usageRecord.js';
export { type UsageStreamFormat, usageStream } from '../spend/usageStream.js';
