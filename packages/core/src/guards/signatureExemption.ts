import type { OutputSignature } from '../signatures/outputSignature.js';

/**
 * A signature whose repetition is legitimate (polling, waiting, stepping a debugger). A string
 * matches an output whose {@link OutputSignature} key or error signature equals it; a RegExp
 * matches when it matches either.
 * @example 'text:waiting for deployment to finish' or /^text:polling /
 */
export type SignatureExemption = string | RegExp;

/** Whether `signature` is covered by one of `exemptions`. */
export function isExempt(signature: OutputSignature, exemptions: readonly SignatureExemption[]): boolean {
  const candidates = [signature.key, signature.error.signature];
  return exemptions.some((exemption) =>
    candidates.some((candidate) =>
      typeof exemption === 'string' ? candidate === exemption : matches(exemption, candidate),
    ),
  );
}

function matches(pattern: RegExp, text: string): boolean {
  pattern.lastIndex = 0; // a global or sticky RegExp keeps state between calls
  return pattern.test(text);
}
