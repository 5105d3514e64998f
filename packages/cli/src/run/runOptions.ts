import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  DEFAULT_COOLDOWN_MS,
  DEFAULT_SAME_ERROR_THRESHOLD,
  DEFAULT_STAGNATION_THRESHOLD,
  DEFAULT_TASK_THRESHOLD,
} from '@loopguard/core/internal';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { CliError } from '../CliError.js';
import { CONFIG_FILES } from '../configFiles.js';
import { EXIT_CODES } from '../exitCodes.js';
import { parseDuration } from './duration.js';

/** What `loopguard run` does when the breaker opens. */
export type StagnationAction = 'pause' | 'alert' | 'abort' | 'escalate';

const duration = (what: string) =>
  z.union([z.number(), z.string()]).transform((value, ctx) => {
    const ms = parseDuration(value);
    if (ms === null) {
      ctx.addIssue({ code: 'custom', message: `must be a duration such as 30s, 15m or 2h (${what})` });
      return z.NEVER;
    }
    return ms;
  });
const count = z.coerce.number().int().min(1, 'must be an integer ≥ 1');
const list = z
  .union([z.string(), z.array(z.string())])
  .transform((v) => (Array.isArray(v) ? v : v.split(',')).map((s) => s.trim()).filter((s) => s.length > 0));

/**
 * The options of `loopguard run`, from flags and `loopguard.config.json` / `.yaml` (flags win).
 * Every key is documented in docs/cli.md.
 */
export const runOptionsSchema = z.strictObject({
  maxIterations: z.coerce.number().int().min(1).max(50, 'must be at most 50 (seed 001 cap)').default(10),
  maxRuntime: duration('at most 60m')
    .pipe(z.number().positive().max(3_600_000, 'must be at most 60m (seed 001 cap)'))
    .default(3_600_000),
  iterationTimeout: duration('per iteration').pipe(z.number().positive()).default(1_800_000),
  stagnationThreshold: count.default(DEFAULT_STAGNATION_THRESHOLD),
  sameErrorThreshold: count.default(DEFAULT_SAME_ERROR_THRESHOLD),
  taskThreshold: count.default(DEFAULT_TASK_THRESHOLD),
  maxConsecutiveFailures: count.default(3),
  cooldown: duration('0 = at once').default(DEFAULT_COOLDOWN_MS),
  autoReset: z.boolean().default(false),
  onStagnation: z.enum(['pause', 'alert', 'abort', 'escalate']).default('pause'),
  completionPromise: z.string().min(1).default('<promise>COMPLETE</promise>'),
  evidenceCommand: z.string().min(1).optional(),
  requireFile: list.default([]),
  task: z.string().min(1).optional(),
  plan: z.string().min(1).optional(),
  promptFile: z.string().min(1).optional(),
  modelProgression: list.default([]),
  webhook: z.url({ message: 'must be an http(s) URL' }).optional(),
  maxCallsPerHour: count.optional(),
  backoff: duration('first wait after an infrastructure error').default(30_000),
  agentStream: z.enum(['claude', 'jsonl']).optional(),
  json: z.boolean().default(false),
});

/** `loopguard run`'s options after validation and defaults (durations in ms). */
export type RunOptions = z.output<typeof runOptionsSchema>;

export { CONFIG_FILES } from '../configFiles.js';

/**
 * Reads the configuration file (`--config PATH` or the first of {@link CONFIG_FILES} in `cwd`).
 * The file may hold the options at the top level or under `run:`.
 * @throws CliError (exit 2) when the file cannot be read or parsed.
 */
export function readConfigFile(
  cwd: string,
  path?: string,
): { path: string | null; values: Record<string, unknown> } {
  const found =
    path !== undefined
      ? resolve(cwd, path)
      : CONFIG_FILES.map((f) => join(cwd, f)).find((f) => existsSync(f));
  if (found === undefined) return { path: null, values: {} };
  let parsed: unknown;
  try {
    const text = readFileSync(found, 'utf8');
    parsed = found.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
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
  const values =
    typeof record.run === 'object' && record.run !== null ? (record.run as Record<string, unknown>) : record;
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
    return parsed.data;
  }
  const issue = parsed.error.issues[0];
  const key = String(issue?.path[0] ?? '');
  const fromFlag = key in flags && flags[key] !== undefined;
  const name = fromFlag || configPath === null ? `--${kebab(key)}` : `${key} (in ${configPath})`;
  const value = merged[key as keyof typeof merged];
  const message =
    issue?.code === 'unrecognized_keys'
      ? `unknown option ${(issue.keys ?? []).join(', ')} (in ${configPath})`
      : `${name} ${issue?.message ?? 'is invalid'} (got ${JSON.stringify(value)})`;
  throw new CliError(message, EXIT_CODES.usage);
}
