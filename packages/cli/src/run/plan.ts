import { readFileSync } from 'node:fs';

/** One checkbox item of a plan file. */
export interface PlanItem {
  /** The item's text (its task id). */
  text: string;
  /** Whether it is checked (`- [x]`). */
  done: boolean;
}

/**
 * Reads the markdown checkboxes (`- [ ] task`, `* [x] task`) of a plan file such as `fix_plan.md`.
 * @returns the items in order; `null` when the file is missing.
 * @example readPlan('fix_plan.md')?.find((i) => !i.done)?.text; // the current task
 */
export function readPlan(path: string): PlanItem[] | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return null;
  }
  const items: PlanItem[] = [];
  for (const match of text.matchAll(/^\s*[-*+]\s+\[([ xX])\]\s+(.+?)\s*$/gm)) {
    items.push({ done: match[1] !== ' ', text: match[2] ?? '' });
  }
  return items;
}

/** The first unchecked item that is not skipped, or `null` when every item is done. */
export function currentTask(
  items: readonly PlanItem[],
  skipped: ReadonlySet<string> = new Set(),
): string | null {
  return items.find((item) => !item.done && !skipped.has(item.text))?.text ?? null;
}
