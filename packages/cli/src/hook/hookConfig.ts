import { lazySchema } from '@loopguard/core/internal';
import {
  type ModelPrice,
  parseSpendOptions,
  type ResolvedSpendOptions,
  spendGuardOn,
} from '@loopguard/core/spend';
import { DEFAULT_EXEMPT_COMMANDS, type StepLoopDetectorOptions } from '@loopguard/core/steps';
import { z } from 'zod';
import { findConfigFile, parseConfigText, readConfigFile } from '../files/configFiles.js';
import { exemptCommandProblem, exemptToolProblem } from './exemptCommandCheck.js';

/** Default of `hook.lockTimeoutMs`: how long a hook waits for another one's lock before giving up (fail open). */
export const DEFAULT_HOOK_LOCK_TIMEOUT_MS = 3000;

/** The `hook` section of `loopguard.config.json|yaml` after validation. */
export interface HookConfig {
  /** The global switch: `false` makes every hook call silent. */
  enabled: boolean;
  /** How long a hook waits for the database lock, ms. */
  lockTimeoutMs: number;
  /** Options of the session's `StepLoopDetector` (thresholds and exemptions). */
  detector: StepLoopDetectorOptions;
  /** The spend guard (the file's top-level `spend` section); absent when it sets no cap or alarm. */
  spend?: ResolvedSpendOptions;
  /** `spend.prices`: per-model prices over the pricing library's (scan prices with them too). */
  prices: Record<string, ModelPrice>;
}

/** The `hook` section's schema, made on first use (`lazySchema`): a project without a configuration file validates nothing. */
const hookSectionSchema = lazySchema(() =>
  z
    .object({
      enabled: z.boolean().default(true),
      lockTimeoutMs: z.number().int().min(0).max(60_000).default(DEFAULT_HOOK_LOCK_TIMEOUT_MS),
      // a repository's exemptions that would switch the guard off unseen (or, a pattern, hold each
      // call to its deadline) are refused before any is used (trust51)
      exemptTools: z.array(z.string()).superRefine(refuseEach(exemptToolProblem)).optional(),
      // A project's polling commands are added to the defaults (`sleep`, `gh run watch`, ...): a
      // configuration file cannot spread a list the way code does.
      exemptCommands: z
        .array(z.string())
        .superRefine(refuseEach(exemptCommandProblem))
        .transform((sources) => [...DEFAULT_EXEMPT_COMMANDS, ...sources.map((source) => new RegExp(source))])
        .optional(),
    })
    .catchall(z.unknown()),
);

/** A refinement adding an issue at each entry `problem` refuses: `"<entry>" <problem>`. */
function refuseEach(problem: (entry: string) => string | undefined) {
  return (entries: string[], context: z.RefinementCtx<string[]>) => {
    for (const [index, entry] of entries.entries()) {
      const why = problem(entry);
      if (why !== undefined)
        context.addIssue({ code: 'custom', path: [index], message: `${JSON.stringify(entry)} ${why}` });
    }
  };
}

/** What the schema gives for an empty `hook` section, without zod (a test holds the two equal). */
const DEFAULT_SECTION: z.output<ReturnType<typeof hookSectionSchema>> = {
  enabled: true,
  lockTimeoutMs: DEFAULT_HOOK_LOCK_TIMEOUT_MS,
};

/** Whether a `hook` section sets nothing: an empty object (`hook: {}`, or no section at all). */
function isEmptySection(section: unknown): boolean {
  return (
    section !== null &&
    typeof section === 'object' &&
    Object.getPrototypeOf(section) === Object.prototype &&
    Object.keys(section).length === 0
  );
}

/**
 * The configuration of a project without a configuration file, made once (in the hook's startup
 * snapshot) without zod: what the schema gives for an empty section (a test holds them equal).
 * Most projects have none.
 */
export const DEFAULT_HOOK_CONFIG: Readonly<HookConfig> = frozen(configOf(DEFAULT_SECTION, undefined));

function frozen(config: HookConfig): Readonly<HookConfig> {
  Object.freeze(config.detector);
  return Object.freeze(config);
}

/**
 * Reads the `hook` section of the project's configuration file (the first of `CONFIG_FILES` in
 * `projectDir`): `enabled`, `lockTimeoutMs`, and the step detector's options (`repeatThreshold`,
 * `stopAfter`, `exemptTools`, `exemptCommands` as regular-expression sources added to the default
 * polling commands, ...), and the top-level `spend` section (docs/spend.md). No file or no
 * section: the defaults (no spend guard).
 * @throws Error naming the file and the key when the file cannot be read or a value is invalid
 *   (the detector validates its own options when it is built).
 */
export async function readHookConfig(projectDir: string): Promise<HookConfig> {
  return readHookConfigNow(projectDir);
}

/** {@link readHookConfig}, for a caller that cannot wait (`status`'s line on the project's hooks). */
export function readHookConfigNow(projectDir: string): HookConfig {
  const file = findConfigFile(projectDir);
  return file === undefined
    ? DEFAULT_HOOK_CONFIG
    : parseHookConfig(file, readConfigFile(file).toString('utf8'));
}

/**
 * The detector's refusal of the `hook` section's options in `file` as every door says it:
 * `config <file>: hook: "repeatThreshold" Too small: …` (the detector's own words name no file).
 */
export function hookSectionError(file: string | undefined, error: unknown): Error {
  const reason = (error as Error).message.replace(/^StepLoopDetector options: /, '');
  return new Error(`config ${file}: hook: ${reason}`);
}

/**
 * The configuration of the text of `file` (JSON or YAML by its name), validated: see {@link readHookConfig}.
 * @throws Error naming the file: and the key when a value is invalid, or the syntax error.
 */
export function parseHookConfig(file: string, text: string): HookConfig {
  let parsed: unknown;
  try {
    parsed = parseConfigText(file, text);
  } catch (error) {
    // in the words `status` and `run` use: which of the project's files, then why
    throw new Error(`config ${file}: cannot be read: ${(error as Error).message}`);
  }
  const section = (parsed as { hook?: unknown } | null)?.hook ?? {};
  const spendSection = (parsed as { spend?: unknown } | null)?.spend;
  const spend =
    spendSection === undefined || spendSection === null
      ? undefined
      : parseSpendOptions(spendSection, `config ${file}: spend`);
  // A file without a `hook` section (a budget only) gives the section's defaults, without zod.
  if (isEmptySection(section)) return configOf(DEFAULT_SECTION, spend);
  const result = hookSectionSchema().safeParse(section);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new Error(`config ${file}: hook.${issue?.path.join('.') ?? ''} ${issue?.message ?? 'is invalid'}`);
  }
  return configOf(result.data, spend);
}

/** The configuration of a parsed `hook` section and the resolved `spend` section. */
function configOf(
  section: z.output<ReturnType<typeof hookSectionSchema>>,
  spend: ResolvedSpendOptions | undefined,
): HookConfig {
  const { enabled, lockTimeoutMs, exemptCommands, ...detector } = section;
  return {
    enabled,
    lockTimeoutMs,
    prices: spend?.prices ?? {},
    ...(spend !== undefined && spendGuardOn(spend) ? { spend } : {}),
    detector: {
      ...detector,
      ...(exemptCommands === undefined ? {} : { exemptCommands }),
    } as StepLoopDetectorOptions,
  };
}
