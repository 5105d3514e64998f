import { textHash } from './stepKeys.js';
import { STEP_SNAPSHOT_VERSION, type StepDetectorSnapshot } from './stepSnapshot.js';

/**
 * The layout of this build's snapshots, beside {@link STEP_SNAPSHOT_VERSION}: bumped with any change
 * to what a part writes (a field added, renamed or retyped), also one that an older reader's
 * defaults absorb. A sealed snapshot is trusted only by the layout that wrote it; a test pins the
 * layout to the fields a snapshot holds, so a change that forgets to bump it fails.
 */
export const STEP_SNAPSHOT_LAYOUT = 2;

/** How a sealed snapshot's text starts: `{"seal":"<version>.<layout> <checksum>","state":<json>}`. */
const SEAL_PREFIX = '{"seal":"';
const STATE_FIELD = '","state":';
const STAMP = `${STEP_SNAPSHOT_VERSION}.${STEP_SNAPSHOT_LAYOUT}`;

/**
 * A snapshot as text, sealed: a JSON object holding the snapshot (`state`) and a seal naming the
 * version and layout that wrote it with a 64-bit checksum of the snapshot's JSON text. Still JSON
 * (the session store requires it); what {@link unsealSnapshot} reads back without validating it again.
 * @example sealSnapshot(detector.snapshot()).startsWith('{"seal":"'); // true
 */
export function sealSnapshot(snapshot: StepDetectorSnapshot): string {
  const body = JSON.stringify(snapshot);
  return `${SEAL_PREFIX}${STAMP} ${textHash(body)}${STATE_FIELD}${body}}`;
}

/**
 * A stored snapshot's state, and whether this build wrote it unchanged: the seal's stamp is this
 * build's version and layout and its checksum matches the snapshot's text. Anything else (an
 * unsealed JSON snapshot, another build's, a text changed since it was sealed) is `sealed: false`,
 * to be validated like any input.
 * @throws SyntaxError when the text is not JSON.
 */
export function unsealSnapshot(text: string): { state: unknown; sealed: boolean } {
  const parsed: unknown = JSON.parse(text);
  if (!text.startsWith(SEAL_PREFIX)) return { state: parsed, sealed: false };
  const at = text.indexOf(STATE_FIELD);
  const state = (parsed as { state?: unknown } | null)?.state;
  if (at === -1 || !text.endsWith('}')) return { state, sealed: false };
  const seal = text.slice(SEAL_PREFIX.length, at);
  const body = text.slice(at + STATE_FIELD.length, -1);
  return { state, sealed: seal === `${STAMP} ${textHash(body)}` };
}
