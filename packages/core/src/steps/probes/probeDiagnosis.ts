import { otherPackageCopy } from './packageCopy.js';

/**
 * The next step for outcome stagnation, from the evidence. When the probe's output runs a file of
 * the same name as an edited one but from another place (`/testbed/pkg/mod.py` runs, the edits are
 * in `/workspace/pkg/mod.py`), the edits cannot take effect: name both paths. When it names none of
 * the edited files, say so. Otherwise `undefined`: the loop type's general advice (which copy of the
 * code runs, a build or install step, a cache) is the next step.
 *
 * @param outputPaths - source paths the probe's output names, innermost first.
 * @param editedPaths - files the changes between its runs named.
 * @example probeDiagnosis(['/testbed/a/b.py'], ['/workspace/a/b.py']); // 'The failing code runs from /testbed/a/b.py, ...'
 */
export function probeDiagnosis(
  outputPaths: readonly string[],
  editedPaths: readonly string[],
): string | undefined {
  const edited = [...new Set(editedPaths.filter((p) => p.startsWith('/')))];
  const copy = otherCopy(outputPaths, edited);
  if (copy !== undefined) {
    return `The failing code runs from ${copy.ran}, the edits are in ${copy.edited}: the edits cannot take effect there. Check which copy is imported (print the module's __file__), then edit that copy or install the edited tree (for example \`pip install -e .\` in it).`;
  }
  if (edited.length > 0 && outputPaths.length > 0 && !outputPaths.some((p) => edited.includes(p))) {
    return `The output names ${outputPaths[0]} but none of the edited files (${edited.slice(-2).join(', ')}): check that the edited code runs at all (a print or an assert in it), and whether the right copy is imported.`;
  }
  return undefined;
}

/**
 * A file the output runs from that is another copy of an edited file (same name and folder, another
 * place), else another copy of an edited package (see `otherPackageCopy`): the evidence that the
 * edits cannot reach the code that runs.
 * @example otherCopy(['/testbed/a/b.py'], ['/workspace/a/b.py']); // { ran: '/testbed/a/b.py', edited: '/workspace/a/b.py' }
 */
export function otherCopy(
  outputPaths: readonly string[],
  editedPaths: readonly string[],
): { ran: string; edited: string } | undefined {
  for (const ran of outputPaths) {
    if (editedPaths.includes(ran)) continue;
    const edited = editedPaths.find((path) => path.startsWith('/') && sameTail(path, ran));
    if (edited !== undefined) return { ran, edited };
  }
  return otherPackageCopy(outputPaths, editedPaths);
}

/** Whether two different paths end in the same file name and parent folder (two copies of one tree). */
function sameTail(a: string, b: string): boolean {
  const pa = a.split('/');
  const pb = b.split('/');
  return (
    a !== b &&
    pa.length >= 2 &&
    pb.length >= 2 &&
    pa[pa.length - 1] === pb[pb.length - 1] &&
    pa[pa.length - 2] === pb[pb.length - 2]
  );
}
