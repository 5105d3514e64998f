import type { Logger } from 'pino';
import { FNV_SEAL_CHECKSUM, type SealChecksum, sealedBody, sealText } from './snapshotSeal.js';
import {
  adoptParsedStepLoopDetectorOptions,
  isParsedStepLoopDetectorOptions,
  STEP_OPTION_DEFAULTS,
  type StepLoopDetectorOptions,
} from './stepLoopDetectorOptions.js';

/**
 * The layout of sealed options: bumped with any change to how they are written. The stamp also holds
 * a checksum of the defaults in force, so that options sealed by a build with other defaults (or
 * other options) are validated again, not taken with that build's defaults.
 */
const OPTIONS_LAYOUT = 1;

/** The data options a seal holds (every option with a default); ports (`logger`, `clock`, ...) are not data. */
const DATA_KEYS = Object.keys(STEP_OPTION_DEFAULTS) as (keyof typeof STEP_OPTION_DEFAULTS)[];

/** A RegExp as JSON: its source and flags. */
type RegExpJson = [source: string, flags: string];

/** The key sealed options are kept under (`sealText`). */
const OPTIONS_FIELD = 'options';

let stamp: string | undefined;
/** `o<layout>.<checksum of the defaults>`, made on first use. */
function stampOf(): string {
  stamp ??= `o${OPTIONS_LAYOUT}.${FNV_SEAL_CHECKSUM.digest(bodyOf(STEP_OPTION_DEFAULTS as StepLoopDetectorOptions))}`;
  return stamp;
}

/** The data options as JSON text, RegExps as `[source, flags]`. */
function bodyOf(options: StepLoopDetectorOptions): string {
  const data: Record<string, unknown> = {};
  for (const key of DATA_KEYS) {
    const value = options[key];
    data[key] =
      key === 'exemptCommands'
        ? (value as readonly RegExp[]).map((pattern): RegExpJson => [pattern.source, pattern.flags])
        : value;
  }
  return JSON.stringify(data);
}

/**
 * Validated detector options as sealed text: their data options (ports such as `logger` are left
 * out: {@link unsealStepLoopDetectorOptions} takes them again) and a seal naming this build's layout,
 * a checksum of its defaults, and `checksum` over the options' text. A host that validates the same
 * options on every start (the command hook, a project's configuration file) keeps this text and
 * reads the options back without zod.
 * @param options - what {@link parseStepLoopDetectorOptions} returned; options holding `stateMachine`,
 *   `clock`, `taskId` or `runId` are a run's, not a configuration's.
 * @param checksum - the checksum to seal with; default {@link FNV_SEAL_CHECKSUM}.
 * @throws TypeError when `options` were not validated, or hold more than data and a logger.
 */
export function sealStepLoopDetectorOptions(
  options: StepLoopDetectorOptions,
  checksum: SealChecksum = FNV_SEAL_CHECKSUM,
): string {
  if (!isParsedStepLoopDetectorOptions(options)) {
    throw new TypeError(
      'sealStepLoopDetectorOptions: options must be validated first (parseStepLoopDetectorOptions)',
    );
  }
  const extra = Object.keys(options).filter(
    (key) => key !== 'logger' && !(DATA_KEYS as string[]).includes(key),
  );
  if (extra.length > 0)
    throw new TypeError(`sealStepLoopDetectorOptions: ${extra.join(', ')} cannot be sealed`);
  return sealText(bodyOf(options), stampOf(), OPTIONS_FIELD, checksum);
}

/**
 * The options sealed by {@link sealStepLoopDetectorOptions} with `checksum`, with `logger`, taken as
 * validated (frozen; a detector built from them does not validate them again), when the seal is this
 * build's (its layout and defaults), names `checksum`, and matches the options' text; `undefined`
 * for anything else (text changed since it was sealed, another build's): the caller
 * validates its source again. Not a defence against whoever can write where the text is kept (they
 * can compute the checksum too): it tells this build's own text, unchanged, from anything else.
 * @param logger - the detector's logger: taken when it has `child()`, else `undefined` is returned
 *   (validate, which refuses it).
 */
export function unsealStepLoopDetectorOptions(
  text: string,
  checksum: SealChecksum = FNV_SEAL_CHECKSUM,
  logger?: Logger,
): StepLoopDetectorOptions | undefined {
  if (logger !== undefined && typeof (logger as { child?: unknown }).child !== 'function') return undefined;
  const body = sealedBody(text, stampOf(), OPTIONS_FIELD, checksum);
  if (body === undefined) return undefined;
  const data = JSON.parse(body) as Record<string, unknown>;
  const options: Record<string, unknown> = {};
  for (const key of DATA_KEYS) options[key] = data[key];
  options.exemptTools = Object.freeze([...(data.exemptTools as string[])]);
  options.exemptCommands = Object.freeze(
    (data.exemptCommands as RegExpJson[]).map(([source, flags]) => new RegExp(source, flags)),
  );
  if (logger !== undefined) options.logger = logger;
  return adoptParsedStepLoopDetectorOptions(Object.freeze(options) as StepLoopDetectorOptions);
}
