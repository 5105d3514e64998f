import { ownsFile } from '../install/hookSettings.js';
import type { WrittenSettingsFile } from '../install/settingsFile.js';
import type { SettingsText } from '../install/settingsText.js';

/** One write of `init`: what puts it back when a later one fails (`undefined`: nothing to put back). */
export type InitStep = () => WrittenSettingsFile | undefined;

/** Whether `after` leaves the settings file `init` made (its marker says so) as it began: then it goes. */
export function madeByInit(settings: SettingsText, after: string): boolean {
  return ownsFile(settings) && after.trim() === '{}';
}

/** Runs `steps` in order; when one fails, the ones before it are undone (newest first) and it throws. */
export function runSteps(steps: InitStep[]): void {
  const done: WrittenSettingsFile[] = [];
  try {
    for (const step of steps) {
      const written = step();
      if (written !== undefined) done.push(written);
    }
  } catch (error) {
    for (const written of done.reverse()) written.undo();
    throw error;
  }
}
