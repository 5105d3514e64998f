import { textHash } from '../keys/stepKeys.js';
import { STEP_SNAPSHOT_VERSION, type StepDetectorSnapshot } from './stepSnapshot.js';

/**
 * The layout of this build's snapshots, beside {@link STEP_SNAPSHOT_VERSION}: bumped with any change
 * to what a part writes (a field added, renamed or retyped), also one that an older reader's
 * defaults absorb. A sealed snapshot is trusted only by the layout that wrote it; a test pins the
 * layout to the fields a snapshot holds, so a change that forgets to bump it fails. Layout 13 keys an
 * editor's call by what it writes as written (`writtenContent`): a layout-12 row is validated once,
 * and an edit it holds reads as new once when it comes again.
 */
export const STEP_SNAPSHOT_LAYOUT = 15;

/**
 * The checksum a seal holds over the snapshot's JSON text. Injected: core has no I/O and runs
 * anywhere, so its own ({@link FNV_SEAL_CHECKSUM}) is plain JavaScript; a host with a native hash
 * (the command hook: `node:crypto`) passes that instead, since a long session's snapshot is
 * hundreds of kilobytes, checksummed twice a call.
 */
export interface SealChecksum {
  /**
   * Names the checksum in the seal (letters and digits): a snapshot sealed with another checksum
   * (or by a build whose seal named none) is validated, not trusted.
   */
  readonly name: string;
  /** The checksum of `text`, as text without spaces or quotes. */
  digest(text: string): string;
}

/** The default {@link SealChecksum}: the 64-bit FNV-1a hash of `textHash`, in JavaScript. */
export const FNV_SEAL_CHECKSUM: SealChecksum = { name: 'fnv64', digest: textHash };

/**
 * `body` (JSON text) sealed: `{"seal":"<stamp> <name>:<checksum>","<field>":<body>}`, still JSON. The
 * one envelope of every seal (a snapshot, detector options, the hook's configuration).
 * @param stamp - what wrote it (a version, a layout, the defaults in force): no spaces or quotes
 * @param field - the key the body is kept under
 * @example sealText('{"a":1}', 'x1', 'state', FNV_SEAL_CHECKSUM).startsWith('{"seal":"x1 fnv64:'); // true
 */
export function sealText(body: string, stamp: string, field: string, checksum: SealChecksum): string {
  return `{"seal":"${stamp} ${checksum.name}:${checksum.digest(body)}","${field}":${body}}`;
}

/**
 * The body of `text` when {@link sealText} sealed it with this `stamp`, `field` and `checksum` and it
 * is unchanged since; `undefined` for anything else (another stamp or checksum, a changed text). The
 * stamp and the checksum's name are compared first: another build's seal costs no checksum.
 */
export function sealedBody(
  text: string,
  stamp: string,
  field: string,
  checksum: SealChecksum,
): string | undefined {
  const head = `{"seal":"${stamp} ${checksum.name}:`;
  if (!text.startsWith(head) || !text.endsWith('}')) return undefined;
  const marker = `","${field}":`;
  const at = text.indexOf(marker, head.length);
  if (at === -1) return undefined;
  const body = text.slice(at + marker.length, -1);
  return text.slice(head.length, at) === checksum.digest(body) ? body : undefined;
}

/** What wrote a sealed snapshot: `<version>.<layout>`. */
const STAMP = `${STEP_SNAPSHOT_VERSION}.${STEP_SNAPSHOT_LAYOUT}`;

/**
 * A snapshot as text, sealed: a JSON object holding the snapshot (`state`) and a seal naming the
 * version and layout that wrote it and the checksum, with the checksum of the snapshot's JSON text.
 * Still JSON, as any snapshot; what {@link unsealSnapshot} reads back without
 * validating it again.
 * @param checksum - the checksum to seal with; default {@link FNV_SEAL_CHECKSUM}.
 * @example sealSnapshot(detector.snapshot()).startsWith('{"seal":"'); // true
 */
export function sealSnapshot(
  snapshot: StepDetectorSnapshot,
  checksum: SealChecksum = FNV_SEAL_CHECKSUM,
): string {
  return sealText(JSON.stringify(snapshot), STAMP, 'state', checksum);
}

/**
 * A stored snapshot's state, and whether this build wrote it unchanged: the seal's stamp is this
 * build's version and layout, it names `checksum`, and the checksum matches the snapshot's text.
 * Anything else (an unsealed JSON snapshot, another build's, one sealed with another checksum, a
 * text changed since it was sealed) is `sealed: false`, to be validated like any input.
 * @param checksum - the checksum the text was sealed with; default {@link FNV_SEAL_CHECKSUM}.
 * @throws SyntaxError when the text is not JSON.
 */
export function unsealSnapshot(
  text: string,
  checksum: SealChecksum = FNV_SEAL_CHECKSUM,
): { state: unknown; sealed: boolean } {
  const parsed: unknown = JSON.parse(text);
  if (!text.startsWith('{"seal":"')) return { state: parsed, sealed: false };
  const state = (parsed as { state?: unknown } | null)?.state;
  return { state, sealed: sealedBody(text, STAMP, 'state', checksum) !== undefined };
}
