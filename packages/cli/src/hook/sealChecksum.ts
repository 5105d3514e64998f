import * as crypto from 'node:crypto';
import type { SealChecksum } from '@loopguard/core/steps';

/**
 * SHA-256 of a text (as UTF-8) or of bytes, as hex: node's one-shot `crypto.hash` (node 20.12 and
 * later), which makes no `Hash` object and stream, else `createHash`. Both give the same digest.
 */
export const sha256Hex: (text: string | Uint8Array) => string =
  typeof crypto.hash === 'function'
    ? (text) => crypto.hash('sha256', text, 'hex')
    : (text) => crypto.createHash('sha256').update(text).digest('hex');

/**
 * The checksum the hook seals a session's snapshot with: SHA-256 by `node:crypto`, at native
 * speed. A long session's snapshot is hundreds of kilobytes, checksummed twice a call (read, then
 * written back); core's own checksum, in JavaScript, took ≈ 3.5 ms of a call's profile on a
 * 2,000-step session (docs/benchmarks.md). Not a defence against whoever can write the file (they
 * can compute it too): it tells this build's own text, unchanged, from anything else, which is
 * validated.
 */
export const SHA256_SEAL_CHECKSUM: SealChecksum = {
  name: 'sha256',
  digest: sha256Hex,
};
