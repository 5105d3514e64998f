import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseSpendOptions, type SpendOptions } from '@loopguard/core/spend';
import { parseDocument } from 'yaml';
import { CliError } from '../CliError.js';
import { CONFIG_FILES } from '../configFiles.js';

/**
 * The spend guard `init --spend` writes when no cap is given: $10 per session, warned at 80 %.
 * A Claude Code session of a few hours on a Sonnet model costs a few dollars; one that reaches $10
 * is usually going in circles.
 */
export const DEFAULT_INIT_SPEND: SpendOptions = { session: { maxCostUsd: 10 }, warnAt: 0.8 };

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

/**
 * Sets the `spend` section of the project's configuration file (the first of `CONFIG_FILES`, else
 * a new `loopguard.config.yaml`), keeping every other key (and a YAML file's comments).
 * @returns the file written and its new text (`dryRun`: nothing is written).
 * @throws CliError naming the file when it cannot be read or parsed; nothing is written.
 */
export function writeSpendSection(
  cwd: string,
  spend: SpendOptions,
  dryRun: boolean,
): { file: string; text: string } {
  parseSpendOptions(spend, 'spend');
  const file =
    CONFIG_FILES.map((name) => join(cwd, name)).find((path) => existsSync(path)) ??
    join(cwd, 'loopguard.config.yaml');
  let text: string;
  try {
    const before = existsSync(file) ? readFileSync(file, 'utf8') : '';
    if (file.endsWith('.json')) {
      const parsed = before.trim() === '' ? {} : (JSON.parse(before) as Record<string, unknown>);
      text = `${JSON.stringify({ ...parsed, spend }, null, 2)}\n`;
    } else {
      const document = parseDocument(before);
      if (document.errors.length > 0) throw document.errors[0];
      if (document.contents === null) document.contents = document.createNode({}) as never;
      document.set('spend', document.createNode(spend));
      text = document.toString();
    }
  } catch (error) {
    throw new CliError(
      `config ${file}: cannot be read: ${(error as Error).message.split('\n')[0]}; nothing written`,
    );
  }
  if (!dryRun) writeFileSync(file, text);
  return { file, text };
}
