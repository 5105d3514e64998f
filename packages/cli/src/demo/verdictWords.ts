import { loopKindWords } from '@loopguard/core/internal';
import type { StepVerdict } from '@loopguard/core/steps';

/**
 * A step verdict as the demo narrates it: `NUDGE (near-identical calls)`, its loop kind in words as
 * every door says it (sess68).
 * @example verdictWords({ action: 'nudge', loopType: 'near_duplicate' }); // 'NUDGE (near-identical calls)'
 */
export function verdictWords(verdict: Pick<StepVerdict, 'action' | 'loopType'>): string {
  return `${verdict.action.toUpperCase()} (${loopKindWords(verdict.loopType ?? '')})`;
}
