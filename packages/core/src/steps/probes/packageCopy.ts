/**
 * Folder names that are no package of their own (roots, install and layout folders): a shared one
 * says nothing about two copies of one package.
 */
const LAYOUT_FOLDER =
  /^(?:lib|lib64|src|source|tests?|site-packages|dist-packages|usr|opt|local|bin|home|root|tmp|var|workspace|testbed|app|build|dist|node_modules|packages|envs|python\d.*|\..*)$/;

/**
 * Another copy of an edited package that the output runs from: an output path and an edited file
 * share a package folder (`shapes`) under different roots (`/srv/app/shapes/core/area.py` runs, the
 * edits are in `/workspace/shapes-1.1/shapes/render/text.py`), and no output path lies in
 * the edited copy. Returns the two copies' folders, or `undefined`.
 *
 * @example otherPackageCopy(['/testbed/pkg/core.py'], ['/workspace/repo/pkg/util.py']); // { ran: '/testbed/pkg', edited: '/workspace/repo/pkg' }
 */
export function otherPackageCopy(
  outputPaths: readonly string[],
  editedPaths: readonly string[],
): { ran: string; edited: string } | undefined {
  for (const edited of editedPaths) {
    if (!edited.startsWith('/')) continue;
    const folders = edited.split('/').slice(1, -1);
    for (const ran of outputPaths) {
      const copy = sharedPackage(ran, folders);
      if (copy === undefined) continue;
      const editedCopy = `/${folders.slice(0, copy.at + 1).join('/')}`;
      // The edited copy runs too: the edits can take effect.
      if (outputPaths.some((path) => path.startsWith(`${editedCopy}/`))) continue;
      return { ran: copy.ran, edited: editedCopy };
    }
  }
  return undefined;
}

/** The package folder `ran` shares with the edited file's `folders`, under another root. */
function sharedPackage(ran: string, folders: readonly string[]): { ran: string; at: number } | undefined {
  if (!ran.startsWith('/')) return undefined;
  const parts = ran.split('/').slice(1, -1);
  for (let i = 0; i < parts.length; i++) {
    const name = parts[i] as string;
    if (name.length < 3 || LAYOUT_FOLDER.test(name)) continue;
    const at = folders.lastIndexOf(name);
    if (at === -1) continue;
    const root = parts.slice(0, i).join('/');
    if (root === folders.slice(0, at).join('/')) return undefined;
    return { ran: `/${parts.slice(0, i + 1).join('/')}`, at };
  }
  return undefined;
}
