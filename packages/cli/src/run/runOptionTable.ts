import {
  DEFAULT_COOLDOWN_MS,
  DEFAULT_INFRASTRUCTURE_BACKOFF_MS,
  DEFAULT_PERMISSION_DENIAL_THRESHOLD,
  DEFAULT_SAME_ERROR_THRESHOLD,
  DEFAULT_STAGNATION_THRESHOLD,
  DEFAULT_TASK_THRESHOLD,
  DEFAULT_TEST_ONLY_SHARE,
} from '@loopguard/core/breaker';
import {
  DEFAULT_CIRCUIT_BREAKER_THRESHOLD,
  MAX_ITERATIONS_CAP,
  MAX_RUNTIME_MINUTES_CAP,
} from '@loopguard/core/guards';
import { DEFAULT_CONFIG } from '@loopguard/core/seeds';
import { DEFAULT_SPEND_WARN_AT } from '@loopguard/core/spend';
import { z } from 'zod';
import { parseDuration } from './duration.js';

/**
 * One option of `loopguard run`: its flag, its help, its default (written once, as a user would
 * type it) and its schema. Commander's options, the zod schema and the table in docs/cli.md are
 * derived from (or checked against) {@link RUN_OPTIONS}.
 */
export interface RunOptionSpec {
  /** The key in the options object and the configuration file (camelCase). */
  key: string;
  /** The commander flag with its value placeholder, e.g. `--max-iterations <n>`. */
  flag: string;
  /** What it does, for `--help` (the default is appended). */
  help: string;
  /**
   * The default as a user would type it (`'60m'`, `10`, `'pause'`), parsed by `schema` like a
   * given value; `undefined` when the option is off unless given.
   */
  default?: string | number | boolean;
  /** How the default reads in `--help` and docs/cli.md when it is not a value (`none`, `stdin`). */
  defaultText?: string;
  /** Validates and converts the value (flags and configuration file); `null` for `--config`, which is not an option of the run. */
  schema: z.ZodType | null;
  /** The allowed values, shown by commander (the schema is their `z.enum`). */
  choices?: readonly string[];
  /** Whether the flag may be given several times (values collected into a list). */
  repeatable?: boolean;
}

const duration = (what: string) =>
  z.union([z.number(), z.string()]).transform((value, ctx) => {
    const ms = parseDuration(value);
    if (ms === null) {
      ctx.addIssue({ code: 'custom', message: `must be a duration such as 30s, 15m or 2h (${what})` });
      return z.NEVER;
    }
    return ms;
  });
/** A whole number from `min` (to `max`), each failure in the same words (zod's read "received NaN"). */
const integer = (min: number, max?: number) => {
  const message = `must be an integer ${max === undefined ? `≥ ${min}` : `from ${min} to ${max}`}`;
  const atLeast = z.coerce.number({ message }).int(message).min(min, message);
  return max === undefined ? atLeast : atLeast.max(max, message);
};
const count = integer(1);
const list = z
  .union([z.string(), z.array(z.string())])
  .transform((v) => (Array.isArray(v) ? v : v.split(',')).map((s) => s.trim()).filter((s) => s.length > 0));
/**
 * The `spend` section as an object (the configuration file) or as JSON (`--spend`): read here, validated
 * with `--max-cost-usd` and `--max-tokens` over it, once (see runSpendOptions).
 */
const spend = z.union([z.string(), z.record(z.string(), z.unknown())]).transform((value, ctx): unknown => {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    ctx.addIssue({ code: 'custom', message: 'must be JSON such as {"session":{"maxCostUsd":5}}' });
    return z.NEVER;
  }
});
const choice = <const T extends readonly [string, ...string[]]>(values: T) => ({
  choices: values,
  schema: z.enum(values),
});

/** The stagnation actions of `--on-stagnation`. */
export const STAGNATION_ACTIONS = ['pause', 'alert', 'abort', 'escalate'] as const;
/** What `--on-question` does. */
export const QUESTION_ACTIONS = ['pause', 'ignore'] as const;
/** The formats of `--agent-stream`. */
export const AGENT_STREAM_FORMATS = ['claude', 'codex', 'gemini', 'jsonl'] as const;

/**
 * The options of `loopguard run`, in `--help` order. To add one, add a row: the flag, the schema,
 * the effect in docs/cli.md's table (a test checks the table against this list).
 */
export const RUN_OPTIONS = [
  {
    key: 'promptFile',
    flag: '--prompt-file <path>',
    help: 'the prompt given to the agent on stdin each iteration',
    defaultText: 'read stdin once',
    schema: z.string().min(1),
  },
  {
    key: 'maxIterations',
    flag: '--max-iterations <n>',
    help: `iterations allowed, 1..${MAX_ITERATIONS_CAP}`,
    default: DEFAULT_CONFIG.max_iterations,
    schema: integer(1, MAX_ITERATIONS_CAP),
  },
  {
    key: 'maxRuntime',
    flag: '--max-runtime <duration>',
    help: `how long the run may last, at most ${MAX_RUNTIME_MINUTES_CAP}m`,
    default: `${MAX_RUNTIME_MINUTES_CAP}m`,
    schema: duration(`at most ${MAX_RUNTIME_MINUTES_CAP}m`).pipe(
      z
        .number()
        .positive()
        .max(MAX_RUNTIME_MINUTES_CAP * 60_000, `must be at most ${MAX_RUNTIME_MINUTES_CAP}m`),
    ),
  },
  {
    key: 'iterationTimeout',
    flag: '--iteration-timeout <duration>',
    help: "end the agent's whole process tree after this long",
    default: '30m',
    schema: duration('per iteration').pipe(z.number().positive()),
  },
  {
    key: 'stagnationThreshold',
    flag: '--stagnation-threshold <n>',
    help: 'iterations without file changes (or unverified completion claims) that open the breaker',
    default: DEFAULT_STAGNATION_THRESHOLD,
    schema: count,
  },
  {
    key: 'sameErrorThreshold',
    flag: '--same-error-threshold <n>',
    help: 'the same normalised error in a row that opens the breaker',
    default: DEFAULT_SAME_ERROR_THRESHOLD,
    schema: count,
  },
  {
    key: 'taskThreshold',
    flag: '--task-threshold <n>',
    help: 'iterations the same task may stay in progress',
    default: DEFAULT_TASK_THRESHOLD,
    schema: count,
  },
  {
    key: 'permissionDenialThreshold',
    flag: '--permission-denial-threshold <n>',
    help: 'iterations in a row whose tool calls were denied a permission that open the breaker',
    default: DEFAULT_PERMISSION_DENIAL_THRESHOLD,
    schema: count,
  },
  {
    key: 'testOnlyShare',
    flag: '--test-only-share <percent>',
    help: 'test-only iterations above this share of the last 10 that changed files are stagnation',
    default: `${DEFAULT_TEST_ONLY_SHARE * 100}%`,
    schema: z.union([z.number(), z.string()]).transform((v, ctx) => {
      const match = /^\s*(\d+(?:\.\d+)?)\s*%?\s*$/.exec(String(v));
      const value = match === null ? Number.NaN : Number(match[1]) / 100;
      if (!(value >= 0 && value <= 1)) {
        ctx.addIssue({ code: 'custom', message: 'must be a percentage from 0% to 100%' });
        return z.NEVER;
      }
      return value;
    }),
  },
  {
    key: 'onQuestion',
    flag: '--on-question <action>',
    help: 'when an iteration ends asking the user a question: pause (exit 3, not counted as stagnation) or ignore it',
    default: 'pause',
    ...choice(QUESTION_ACTIONS),
  },
  {
    key: 'maxConsecutiveFailures',
    flag: '--max-consecutive-failures <n>',
    help: 'agent runs failing in a row (exit code ≠ 0, infrastructure excluded) that open the breaker',
    default: DEFAULT_CIRCUIT_BREAKER_THRESHOLD,
    schema: count,
  },
  {
    key: 'cooldown',
    flag: '--cooldown <duration>',
    help: 'how long an OPEN breaker waits before trial iterations (HALF_OPEN); 0 = at once',
    default: `${DEFAULT_COOLDOWN_MS / 60_000}m`,
    schema: duration('0 = at once'),
  },
  {
    key: 'autoReset',
    flag: '--auto-reset',
    help: 'after the cooldown close the breaker instead of HALF_OPEN',
    default: false,
    schema: z.boolean(),
  },
  {
    key: 'onStagnation',
    flag: '--on-stagnation <action>',
    help: 'what to do when the breaker opens',
    default: 'pause',
    ...choice(STAGNATION_ACTIONS),
  },
  {
    key: 'completionPromise',
    flag: '--completion-promise <text>',
    help: 'the text by which the agent claims completion',
    default: '<promise>COMPLETE</promise>',
    schema: z.string().min(1),
  },
  {
    key: 'evidenceCommand',
    flag: '--evidence-command <command>',
    help: 'shell command that must succeed for a completion claim to count (e.g. "npm test")',
    schema: z.string().min(1),
  },
  {
    key: 'requireFile',
    flag: '--require-file <path>',
    help: 'a file that must exist for a completion claim to count (repeatable)',
    default: '',
    defaultText: 'none',
    schema: list,
    repeatable: true,
  },
  { key: 'task', flag: '--task <id>', help: 'the task the run works on', schema: z.string().min(1) },
  {
    key: 'plan',
    flag: '--plan <path>',
    help: 'markdown plan file: the current task is the first unchecked "- [ ]" item',
    schema: z.string().min(1),
  },
  {
    key: 'modelProgression',
    flag: '--model-progression <models>',
    help: 'models to escalate through, comma-separated (e.g. haiku,sonnet,opus)',
    default: '',
    defaultText: 'none',
    schema: list,
  },
  {
    key: 'webhook',
    flag: '--webhook <url>',
    help: 'POST a JSON alert here when the breaker opens',
    schema: z.url({ message: 'must be an http(s) URL' }),
  },
  {
    key: 'maxCallsPerHour',
    flag: '--max-calls-per-hour <n>',
    help: 'at most this many agent runs per hour (waits otherwise)',
    defaultText: 'unlimited',
    schema: count,
  },
  {
    key: 'backoff',
    flag: '--backoff <duration>',
    help: 'first wait after an infrastructure error (rate limit, 5xx), doubling',
    default: `${DEFAULT_INFRASTRUCTURE_BACKOFF_MS / 1000}s`,
    schema: duration('first wait after an infrastructure error'),
  },
  {
    key: 'agentStream',
    flag: '--agent-stream <format>',
    help: "read the agent's tool calls live from its stdout (claude: claude -p --output-format stream-json --verbose; codex: codex exec --json; gemini: gemini --output-format stream-json; jsonl: one JSON event per line); the loop detector of the hooks nudges the next prompt or stops the iteration mid-run",
    defaultText: 'off',
    ...choice(AGENT_STREAM_FORMATS),
  },
  {
    key: 'maxCostUsd',
    flag: '--max-cost-usd <usd>',
    help: `stop the run when the agent's replies have cost this many US dollars, warning at ${DEFAULT_SPEND_WARN_AT * 100} % (read from --agent-stream; prices from the pricing library)`,
    defaultText: 'off',
    schema: z.coerce.number({ message: 'must be a number > 0' }).positive('must be a number > 0'),
  },
  {
    key: 'maxTokens',
    flag: '--max-tokens <n>',
    help: `stop the run when the agent's replies have used this many tokens (input, output and cache), warning at ${DEFAULT_SPEND_WARN_AT * 100} % (read from --agent-stream)`,
    defaultText: 'off',
    schema: count,
  },
  {
    key: 'spend',
    flag: '--spend <json>',
    help: 'the spend guard: the `spend` section of loopguard.config.yaml (session, task, warnAt, burnRate, prices, onUnknownPrice) as JSON; see docs/spend.md',
    defaultText: 'off',
    schema: spend,
  },
  {
    key: 'json',
    flag: '--json',
    help: 'one JSON event per line on stdout instead of the human display',
    default: false,
    schema: z.boolean(),
  },
  {
    key: 'config',
    flag: '--config <path>',
    help: 'configuration file',
    defaultText: 'loopguard.config.json, .yaml or .yml in the current directory',
    schema: null,
  },
] as const satisfies readonly RunOptionSpec[];

/** How an option's default reads in `--help` and docs/cli.md. */
export function defaultTextOf(spec: RunOptionSpec): string {
  if (spec.defaultText !== undefined) return spec.defaultText;
  if (spec.default === undefined) return 'none';
  if (typeof spec.default === 'boolean') return spec.default ? 'on' : 'off';
  return String(spec.default);
}
