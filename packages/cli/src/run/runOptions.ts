import { resolve } from 'node:path';
import { describeValue } from '@loopguard/core/internal';
import { type ResolvedSpendOptions, spendGuardOn } from '@loopguard/core/spend';
import { type Command, Option } from 'commander';
import { z } from 'zod';
import {
  CONFIG_FILES,
  findConfigFile,
  parseConfigText,
  readConfigFile as readConfigBytes,
} from '../files/configFiles.js';
import { CliError } from '../terminal/CliError.js';
import { EXIT_CODES } from '../terminal/exitCodes.js';
import { defaultTextOf, RUN_OPTIONS, type RunOptionSpec, type STAGNATION_ACTIONS } from './runOptionTable.js';
import { runSpendOptions } from './runSpendOptions.js';

/** What `loopguard run` does when the breaker opens. */
export type StagnationAction = (typeof STAGNATION_ACTIONS)[number];

type Spec = (typeof RUN_OPTIONS)[number];
type Validated = Exclude<Spec, { schema: null }>;
type Defaulted = Extract<Validated, { default: unknown }>;
type Optional = Exclude<Validated, { default: unknown }>;

/** `loopguard run`'s options after validation and defaults (durations in ms). */
export type RunOptions = { [S in Defaulted as S['key']]: z.output<S['schema']> } & {
  [S in Exclude<Optional, { key: 'spend' }> as S['key']]?: z.output<S['schema']>;
} & {
  /** The run's spend options: the `spend` section with `--max-cost-usd` and `--max-tokens` over it, validated. */
  spend?: ResolvedSpendOptions;
};

function fieldSchema(spec: RunOptionSpec & { schema: z.ZodType }): z.ZodType {
  return spec.default === undefined ? spec.schema.optional() : spec.schema.prefault(spec.default);
}

/**
 * The options of `loopguard run`, from flags and `loopguard.config.json` / `.yaml` (flags win),
 * derived from {@link RUN_OPTIONS}: a default is parsed like a given value. Unknown keys are rejected.
 * The spend options are validated once, with the run's caps over the section (runSpendOptions).
 */
export const runOptionsSchema = z
  .strictObject(
    Object.fromEntries(
      (RUN_OPTIONS as readonly RunOptionSpec[]).flatMap((spec) =>
        spec.schema === null ? [] : [[spec.key, fieldSchema({ ...spec, schema: spec.schema })]],
      ),
    ),
  )
  .transform((options, ctx) => {
    const spend = runSpendOptions(options);
    if (spend === undefined) return options;
    if (spend.success) return { ...options, spend: spend.data };
    const issue = spend.error.issues[0];
    // custom, not unrecognized_keys: a key unknown inside the section is not an unknown option of the run
    ctx.addIssue({
      code: 'custom',
      message: issue?.message ?? 'is invalid',
      path: ['spend', ...(issue?.path ?? [])],
    });
    return z.NEVER;
  }) as unknown as z.ZodType<RunOptions>;

const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];

/** Adds every option of {@link RUN_OPTIONS} to commander's `run` command, in table order. */
export function addRunOptions(command: Command): Command {
  for (const spec of RUN_OPTIONS as readonly RunOptionSpec[]) {
    const noDefault = spec.default === undefined && spec.defaultText === undefined;
    const option = new Option(
      spec.flag,
      noDefault ? spec.help : `${spec.help} (default: ${defaultTextOf(spec)})`,
    );
    if (spec.choices !== undefined) option.choices(spec.choices);
    if (spec.repeatable === true) option.argParser(collect);
    command.addOption(option);
  }
  return command;
}

export { CONFIG_FILES } from '../files/configFiles.js';

/**
 * Reads the configuration file (`--config PATH` or the first of {@link CONFIG_FILES} in `cwd`).
 * The file may hold the options at the top level or under `run:`.
 * @throws CliError (exit 2) when the file cannot be read or parsed.
 */
export function readConfigFile(
  cwd: string,
  path?: string,
): { path: string | null; values: Record<string, unknown> } {
  // one rule with the hooks' (findConfigFile: another user's file in a shared folder is passed over)
  const found = path !== undefined ? resolve(cwd, path) : findConfigFile(cwd);
  if (found === undefined) return { path: null, values: {} };
  let parsed: unknown;
  try {
    parsed = parseConfigText(found, readConfigBytes(found).toString('utf8'));
  } catch (error) {
    throw new CliError(
      `config ${found}: cannot be read: ${(error as Error).message.split('\n')[0]}`,
      EXIT_CODES.usage,
    );
  }
  if (parsed === null || parsed === undefined) return { path: found, values: {} };
  if (typeof parsed !== 'object' || Array.isArray(parsed))
    throw new CliError(`config ${found}: must be an object of options`);
  const record = parsed as Record<string, unknown>;
  // The `spend` section is shared with the hooks: it applies to the run beside a `run:` section too.
  const values =
    typeof record.run === 'object' && record.run !== null
      ? {
          ...(record.spend === undefined ? {} : { spend: record.spend }),
          ...(record.run as Record<string, unknown>),
        }
      : record;
  return { path: found, values: Object.fromEntries(Object.entries(values).map(([k, v]) => [camel(k), v])) };
}

function camel(key: string): string {
  return key.replace(/[-_]([a-z])/g, (_, c: string) => c.toUpperCase());
}

function kebab(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/**
 * Validates the merged options (file values overridden by flags).
 * @throws CliError (exit 2) naming the offending key: `--max-iterations` for a flag, `maxIterations` in the file.
 */
export function resolveRunOptions(
  fileValues: Record<string, unknown>,
  flags: Record<string, unknown>,
  configPath: string | null,
): RunOptions {
  const merged = {
    ...fileValues,
    ...Object.fromEntries(Object.entries(flags).filter(([, v]) => v !== undefined)),
  };
  const parsed = runOptionsSchema.safeParse(merged);
  if (parsed.success) {
    if (parsed.data.task !== undefined && parsed.data.plan !== undefined)
      throw new CliError('--task and --plan cannot be used together');
    if (parsed.data.agentStream === undefined && spendGuardOn(parsed.data.spend))
      throw new CliError("the spend guard reads the agent's usage from its output: give --agent-stream");
    return parsed.data;
  }
  const issue = parsed.error.issues[0];
  const [first, ...inner] = (issue?.path ?? []).map(String);
  const key = first ?? '';
  const fromFlag = key in flags && flags[key] !== undefined;
  const where = inner.length === 0 ? '' : ` ${inner.join('.')}`;
  const name =
    fromFlag || configPath === null ? `--${kebab(key)}${where}` : `${key}${where} (in ${configPath})`;
  // The value at the issue's path; a flag's text (`--spend <json>`) stands for what is inside it.
  let value: unknown = merged;
  for (const part of [key, ...inner]) {
    if (value === null || typeof value !== 'object') break;
    value = (value as Record<string, unknown>)[part];
  }
  // describeValue, not JSON: a NaN (`.nan` in YAML) must read as NaN, not null.
  const message =
    issue?.code === 'unrecognized_keys'
      ? `unknown option ${(issue.keys ?? []).join(', ')} (in ${configPath})`
      : `${name} ${issue?.message ?? 'is invalid'} (got ${describeValue(value)})`;
  throw new CliError(message, EXIT_CODES.usage);
}
