import { type ResolvedSpendOptions, spendOptionsSchema } from '@loopguard/core/spend';
import type { z } from 'zod';

/**
 * The spend options of a run, validated once: the `spend` option (the configuration file's section,
 * or `--spend` read as JSON) with `--max-cost-usd` and `--max-tokens` as the run's own caps over it.
 * What the schema returns is known as validated, so the run's `SpendGuard` takes it as it is.
 * @returns `undefined` when none of the three is set, else the parse: the options or the first issue
 *   (its path inside the section).
 */
export function runSpendOptions(options: {
  spend?: unknown;
  maxCostUsd?: number | undefined;
  maxTokens?: number | undefined;
}): z.ZodSafeParseResult<ResolvedSpendOptions> | undefined {
  const { maxCostUsd, maxTokens } = options;
  if (options.spend === undefined && maxCostUsd === undefined && maxTokens === undefined) return undefined;
  const section = options.spend ?? {};
  const caps = {
    ...(maxCostUsd === undefined ? {} : { maxCostUsd }),
    ...(maxTokens === undefined ? {} : { maxTokens }),
  };
  // A section or session that is not an object is left as it is, for the schema to name.
  const session = isRecord(section) ? (section.session ?? {}) : undefined;
  const spend =
    Object.keys(caps).length > 0 && isRecord(section) && isRecord(session)
      ? { ...section, session: { ...session, ...caps } }
      : section;
  return spendOptionsSchema().safeParse(spend) as z.ZodSafeParseResult<ResolvedSpendOptions>;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
