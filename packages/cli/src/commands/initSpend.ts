import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  DEFAULT_SPEND_WARN_AT,
  formatUsd,
  parseSpendOptions,
  type ResolvedSpendOptions,
  type SpendCaps,
  type SpendOptions,
  spendGuardOn,
} from '@loopguard/core/spend';
import { parseDocument } from 'yaml';
import { CONFIG_FILES, parseConfigText, readConfigFile } from '../files/configFiles.js';
import { pricesBelowLibrary } from '../hook/cheaperPrices.js';
import { CliError } from '../terminal/CliError.js';

const INIT_SESSION_USD = 10;

/**
 * The spend guard `init --spend` writes when no cap is given: $10 per session, warned at 80 %.
 * A Claude Code session of a few hours on a Sonnet model costs a few dollars; one that reaches $10
 * is usually going in circles.
 */
export const DEFAULT_INIT_SPEND: SpendOptions = {
  session: { maxCostUsd: INIT_SESSION_USD },
  warnAt: DEFAULT_SPEND_WARN_AT,
};
/** {@link DEFAULT_INIT_SPEND} as `init --help` says it. */
export const DEFAULT_INIT_SPEND_WORDS = `$${INIT_SESSION_USD} a session, warned at ${DEFAULT_SPEND_WARN_AT * 100} %`;

/** `init`'s spend flags. */
export interface InitSpendFlags {
  /** `--spend`: write the spend section (the default, or the caps given). */
  spend?: boolean;
  /** `--max-cost-usd <usd>`: the session's cap in dollars. */
  maxCostUsd?: string;
  /** `--max-tokens <n>`: the session's cap in tokens. */
  maxTokens?: string;
}

/** The spend section the flags ask for, or `undefined` when they ask for none. */
export function initSpendOf(flags: InitSpendFlags): SpendOptions | undefined {
  if (flags.maxCostUsd === undefined && flags.maxTokens === undefined)
    return flags.spend ? DEFAULT_INIT_SPEND : undefined;
  const number = (value: string, flag: string, integer: boolean) => {
    const n = Number(value);
    if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n)))
      throw new CliError(
        `${flag} must be ${integer ? 'an integer' : 'a number'} > 0, got ${JSON.stringify(value)}`,
      );
    return n;
  };
  return {
    session: {
      ...(flags.maxCostUsd === undefined
        ? {}
        : { maxCostUsd: number(flags.maxCostUsd, '--max-cost-usd', false) }),
      ...(flags.maxTokens === undefined ? {} : { maxTokens: number(flags.maxTokens, '--max-tokens', true) }),
    },
    warnAt: 0.8,
  };
}

/** What {@link writeSpendSection} did, or would do with `dryRun`. */
export interface SpendSectionWrite {
  /** The configuration file. */
  file: string;
  /** Its text after the change. */
  text: string;
  /** Whether the file's own budget stays as it was (nothing written). */
  kept: boolean;
  /** The budgets in force afterwards, in words, with what a new amount replaced ({@link budgetsInWords}). */
  budgets: string;
}

/**
 * Sets the `spend` section of the project's configuration file (the first of `CONFIG_FILES`, else
 * a new `loopguard.config.yaml`), keeping every other key (and a YAML file's comments). A budget the
 * file already sets is never replaced without a new amount: `--spend` alone keeps it (nothing is
 * written), `--max-cost-usd` / `--max-tokens` replace only the session's cap they name, keeping the
 * section's other keys. The file's section is validated as the hooks read it.
 * @param spend - what the flags ask for ({@link initSpendOf}).
 * @param amounts - whether the flags named an amount (`--max-cost-usd`, `--max-tokens`).
 * @returns what was written, or would be (`dryRun`: nothing is written).
 * @throws CliError naming the file when it cannot be read or parsed, or naming the key of a bad
 *   value in its section; nothing is written.
 */
export function writeSpendSection(
  cwd: string,
  spend: SpendOptions,
  amounts: boolean,
  dryRun: boolean,
): SpendSectionWrite {
  const file =
    CONFIG_FILES.map((name) => join(cwd, name)).find((path) => existsSync(path)) ??
    join(cwd, 'loopguard.config.yaml');
  let before: string;
  let own: unknown;
  let set: (next: Record<string, unknown>) => string;
  try {
    // the hooks' rules: a regular file only, and an error that names its line, never quotes its
    // text (a repository's configuration may link to the user's credentials)
    before = existsSync(file) ? readConfigFile(file).toString('utf8') : '';
    const read = before.trim() === '' ? {} : parseConfigText(file, before);
    if (file.endsWith('.json')) {
      const parsed = read as Record<string, unknown>;
      own = parsed.spend;
      set = (next) => `${JSON.stringify({ ...parsed, spend: next }, null, 2)}\n`;
    } else {
      const document = parseDocument(before);
      if (document.errors.length > 0) throw new Error('not valid YAML');
      if (document.contents === null) document.contents = document.createNode({}) as never;
      own = (document.toJS() as { spend?: unknown } | null)?.spend;
      set = (next) => {
        // A section of the file's own keeps its comments: only the keys that change are set.
        if (isRecord(own) && isMap(document.get('spend')))
          for (const [path, value] of leaves(next, own)) document.setIn(['spend', ...path], value);
        else document.set('spend', document.createNode(next));
        return document.toString();
      };
    }
  } catch (error) {
    throw new CliError(
      `config ${file}: cannot be read: ${(error as Error).message.split('\n')[0]}; nothing written`,
    );
  }
  const section = isRecord(own) ? own : undefined;
  const current = section === undefined ? undefined : validated(section, file);
  const hasBudget = current !== undefined && spendGuardOn(current);
  if (hasBudget && !amounts) return { file, text: before, kept: true, budgets: budgetsInWords(current) };
  // The file's own keys win over the default's (`warnAt`); the amounts given win over the file's.
  const next = {
    ...(hasBudget ? {} : spend),
    ...section,
    session: { ...(section?.session as object | undefined), ...spend.session },
  };
  const budgets = budgetsInWords(validated(next, file), current);
  const text = set(next);
  if (!dryRun) writeFileSync(file, text);
  return { file, text, kept: false, budgets };
}

/** The section as the hooks read it, or a one-line error naming the file and the key. */
function validated(section: unknown, file: string): ResolvedSpendOptions {
  try {
    return parseSpendOptions(section, `config ${file}: spend`);
  } catch (error) {
    throw new CliError(`${(error as Error).message}; nothing written`);
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

const isMap = (node: unknown): boolean => node !== null && typeof node === 'object' && 'items' in node;

/** The paths and values of `next` that differ from `own` (objects walked, other values whole). */
function leaves(next: Record<string, unknown>, own: Record<string, unknown>): [string[], unknown][] {
  const changed: [string[], unknown][] = [];
  for (const [key, value] of Object.entries(next)) {
    const old = own[key];
    if (isRecord(value) && isRecord(old))
      for (const [path, inner] of leaves(value, old)) changed.push([[key, ...path], inner]);
    else if (JSON.stringify(value) !== JSON.stringify(old)) changed.push([[key], value]);
  }
  return changed;
}

/**
 * The budgets in force, in words, as `init` prints them: `$0.50 a session, warned at 80 %, a reply
 * without a price: warn`; with `before`, a session cap that changed says what it was (`(was $0.50)`).
 */
export function budgetsInWords(spend: ResolvedSpendOptions, before?: ResolvedSpendOptions): string {
  const caps = (caps: SpendCaps | undefined, per: string, old?: SpendCaps) => {
    const parts: string[] = [];
    if (caps?.maxCostUsd !== undefined)
      parts.push(formatUsd(caps.maxCostUsd) + was(caps.maxCostUsd, old?.maxCostUsd, formatUsd));
    if (caps?.maxTokens !== undefined)
      parts.push(`${tokens(caps.maxTokens)} tokens${was(caps.maxTokens, old?.maxTokens, tokens)}`);
    return parts.length === 0 ? [] : [`${parts.join(' or ')} ${per}`];
  };
  const burn = spend.burnRate;
  const rates = [
    ...(burn?.tokensPerMinute === undefined ? [] : [`${tokens(burn.tokensPerMinute)} tokens`]),
    ...(burn?.costUsdPerMinute === undefined ? [] : [formatUsd(burn.costUsdPerMinute)]),
  ];
  return [
    ...caps(spend.session, 'a session', before?.session),
    ...caps(spend.task, 'a task'),
    ...caps(spend.projectDay, 'a project a day'),
    ...(rates.length === 0
      ? []
      : [`${burn?.action} at ${rates.join(' or ')} a minute over ${burn?.forMinutes} minutes`]),
    `warned at ${Math.round(spend.warnAt * 100)} %`,
    `a reply without a price: ${spend.onUnknownPrice}`,
    ...cheaperWords(spend),
  ].join(', ');
}

/** The models the section prices below the pricing library, where a budget is in dollars (trust52). */
function cheaperWords(spend: ResolvedSpendOptions): string[] {
  const inDollars = [spend.session, spend.task, spend.projectDay].some(
    (caps) => caps?.maxCostUsd !== undefined,
  );
  const below = inDollars && spend.prices !== undefined ? pricesBelowLibrary(spend.prices) : undefined;
  return below === undefined ? [] : [`prices below the pricing library's: ${below}`];
}

function was<T>(now: T, old: T | undefined, format: (value: T) => string): string {
  return old === undefined || old === now ? '' : ` (was ${format(old)})`;
}

function tokens(value: number): string {
  return value.toLocaleString('en-US');
}
