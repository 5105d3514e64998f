import type { OutputSignature } from '../signatures/outputSignature.js';

/**
 * The signature key repeated by the last `threshold` signatures, or `null` when they differ or
 * there are fewer than `threshold`. Callers leave out infrastructure errors and exempt outputs first.
 * @example repeatedSignature(['a', 'b', 'b', 'b'].map(outputSignature), 3); // 'text:b'
 */
export function repeatedSignature(signatures: readonly OutputSignature[], threshold: number): string | null {
  if (signatures.length < threshold) return null;
  const last = signatures.slice(-threshold);
  const key = last[0]?.key;
  return key !== undefined && last.every((signature) => signature.key === key) ? key : null;
}
