import { compactKey } from '../keys/stepKeys.js';

/** How the probe ledger reads paths: a probe's identity, and whether two paths name one file. */

/**
 * A probe's identity: its command line (`cd` prefixes already left out by `classifyAction`) with
 * each path argument read as its file name, so `python /w/x.py` and `cd /w && python x.py` are one probe.
 * @example probeIdentity('python /workspace/repo/reproduce.py'); // 'python reproduce.py'
 */
export function probeIdentity(probe: string): string {
  return compactKey(probe.replace(/(?<=^|[\s=])(?:\.{0,2}\/)?(?:[\w.+-]+\/)+(?=[\w.+-]+\.\w+\b)/g, ''));
}

/** Whether two paths name the same file: equal, or one ends with the other (a relative and an absolute path). */
export function samePath(a: string, b: string): boolean {
  if (a === b) return true;
  const [long, short] = a.length > b.length ? [a, b] : [b, a];
  // `long` ends with `/` and `short` (its `./` left out), compared in place: no string is built.
  const tail = short.startsWith('./') ? short.slice(2) : short;
  const slash = long.length - tail.length - 1;
  return slash >= 0 && long.charCodeAt(slash) === SLASH && long.endsWith(tail);
}

const SLASH = 47;
