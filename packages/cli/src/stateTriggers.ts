import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import { foreignTriggers } from '@loopguard/sqlite';
import { UnsafeStateError } from './stateFolder.js';

/**
 * Refuses a `.loopguard` loopguard did not make (an archive's, a copy's: see `ownStateFolder`) whose
 * `state.db` holds triggers its migrations did not make: they would run inside every write of the
 * hooks and `run` (undo a session's memory so that no loop is found, switch sessions off), unseen (trust48).
 * Asked once, before the folder is marked as loopguard's.
 * @throws UnsafeStateError naming the folder and what to do
 */
export function refuseForeignTriggers(folder: string): void {
  const path = join(folder, 'state.db');
  let count: number;
  try {
    // a link, a FIFO, a corrupt file: the database's open refuses it as before, and says why
    if (!lstatSync(path, { throwIfNoEntry: false })?.isFile()) return;
    count = foreignTriggers(path);
  } catch {
    return;
  }
  if (count > 0)
    throw new UnsafeStateError(
      `refusing ${folder}: loopguard did not make it, and its state.db holds ${count} trigger(s) loopguard's schema has not, which would run inside what the hooks and loopguard run record; remove it (rm -rf .loopguard): the next session makes a new one`,
    );
}
