import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import { foreignSchemaObjects } from '@loopguard/sqlite';
import { UnsafeStateError } from './stateFolder.js';

/**
 * Refuses a `.loopguard` loopguard did not make (an archive's, a copy's: see `ownStateFolder`) whose
 * `state.db` holds schema objects its migrations did not make: a trigger would run inside every
 * write of the hooks and `run` (undo a session's memory so that no loop is found, trust48), a view
 * would change what every door reads of every session (a stopped one read "no loop found", trust49).
 * Asked once, before the folder is marked as loopguard's.
 * @throws UnsafeStateError naming the folder and what to do
 */
export function refuseForeignSchema(folder: string): void {
  const path = join(folder, 'state.db');
  let count: number;
  try {
    // a link, a FIFO, a corrupt file: the database's open refuses it as before, and says why
    if (!lstatSync(path, { throwIfNoEntry: false })?.isFile()) return;
    count = foreignSchemaObjects(path);
  } catch {
    return;
  }
  if (count > 0)
    throw new UnsafeStateError(
      `refusing ${folder}: loopguard did not make it, and its state.db holds ${count} table(s), view(s), index(es) or trigger(s) loopguard's schema has not, which would change what the hooks and loopguard run record and what every door reads; remove it (rm -rf .loopguard): the next session makes a new one`,
    );
}
