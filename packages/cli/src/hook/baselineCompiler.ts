import { setFlagsFromString } from 'node:v8';

/**
 * The V8 flag a hook call from the startup snapshot runs with: V8's baseline compiler (Sparkplug)
 * off. A call lives ≈ 40 ms and runs each of its functions a few times: the machine code Sparkplug
 * makes of a function past its first runs costs more than it saves before the process ends
 * (docs/benchmarks.md, docs/decisions.md: issue 37 §3, the command hook, hook70). The maker of
 * zod's code cache, which only those calls load, runs with it too (build-hook-snapshot.mjs): V8
 * takes a code cache only where its flags are the ones it was made with.
 */
export const HOOK_V8_FLAG = '--no-sparkplug';

let off = false;

/**
 * Turns V8's baseline compiler off for the rest of this process ({@link HOOK_V8_FLAG}), set at run
 * time (`v8.setFlagsFromString`): the hook's startup snapshot is built, and node started, with V8's
 * defaults. For a process that ends within its call, never for a long-lived one.
 */
export function baselineCompilerOff(): void {
  setFlagsFromString(HOOK_V8_FLAG);
  off = true;
}

/**
 * Runs `compile` with V8's flags as node starts (the baseline compiler on): a code cache the build
 * made in a node with its defaults (the pricing library's, which `scan`'s threads load too) is
 * checked against the flags of the moment it is read, and refused where they differ. The compiled
 * code is bytecode, which either setting runs; {@link baselineCompilerOff}'s setting is back after it.
 * @returns what `compile` returns.
 */
export function withStartFlags<T>(compile: () => T): T {
  if (!off) return compile();
  setFlagsFromString('--sparkplug');
  try {
    return compile();
  } finally {
    setFlagsFromString(HOOK_V8_FLAG);
  }
}
