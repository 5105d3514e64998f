import type { SpendOptions } from '@loopguard/core/spend';

/**
 * The spend options of a run: the `spend` option (the configuration file's section, or `--spend`)
 * with `--max-cost-usd` and `--max-tokens` as the run's own caps over it.
 */
export function runSpendOptions(options: {
  spend?: object | undefined;
  maxCostUsd?: number | undefined;
  maxTokens?: number | undefined;
}): SpendOptions {
  const spend = { ...(options.spend ?? {}) } as SpendOptions;
  if (options.maxCostUsd !== undefined || options.maxTokens !== undefined) {
    spend.session = {
      ...spend.session,
      ...(options.maxCostUsd === undefined ? {} : { maxCostUsd: options.maxCostUsd }),
      ...(options.maxTokens === undefined ? {} : { maxTokens: options.maxTokens }),
    };
  }
  return spend;
}
