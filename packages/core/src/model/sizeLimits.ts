import { InvalidInputError } from '../kernel/errors.js';
import { assertNonEmptyString } from '../kernel/validate.js';
import type { Attempt } from './attempt.js';

/**
 * The documented maximum sizes of what the detectors store. Larger input is a
 * typed error (task ids; attempts handed straight to an adapter) or truncated with a marker (the
 * lists an attempt records and the evidence copied into a recovery), never stored in full.
 * @example if (taskId.length > SIZE_LIMITS.taskIdLength) …
 */
export const SIZE_LIMITS = Object.freeze({
  /** Longest task id, in characters; a longer one is an InvalidInputError. */
  taskIdLength: 256,
  /** Most blockers, and most completed-work items, one attempt records; the rest become one marker item. */
  listItems: 100,
  /** Longest blocker or completed-work item an attempt records, in characters; the rest becomes a marker. */
  itemLength: 4096,
  /** Most blockers, and most work items, of each attempt copied into a recovery's evidence. */
  evidenceListItems: 20,
  /** Longest blocker or work item copied into a recovery's evidence, in characters. */
  evidenceItemLength: 500,
});

/**
 * Throws unless `value` is a task id: a non-empty string of at most `SIZE_LIMITS.taskIdLength` characters.
 * @throws InvalidInputError naming the argument.
 * @example assertTaskId(taskId, 'taskId');
 */
export function assertTaskId(value: unknown, name: string): asserts value is string {
  assertNonEmptyString(value, name);
  if (value.length > SIZE_LIMITS.taskIdLength) {
    throw new InvalidInputError(
      `${name} is ${value.length} characters long; a task id has at most ${SIZE_LIMITS.taskIdLength}`,
    );
  }
}

/**
 * `values` cut to `maxItems` items of at most `maxLength` characters each: a longer item keeps its
 * start and ends with ` … [truncated N characters]`; items past `maxItems` are replaced by one marker
 * item `… [N more items not stored]`. Returns `values` itself when nothing is cut.
 * @example boundedList(['x'.repeat(5000)], 100, 4096)[0].endsWith('[truncated 904 characters]'); // true
 */
export function boundedList(
  values: readonly string[],
  maxItems: number,
  maxLength: number,
): readonly string[] {
  let cut = values.length > maxItems;
  for (let i = 0; !cut && i < values.length; i++) cut = (values[i] as string).length > maxLength;
  if (!cut) return values;
  const kept = values
    .slice(0, maxItems)
    .map((item) =>
      item.length > maxLength
        ? `${item.slice(0, maxLength)} … [truncated ${plural(item.length - maxLength, 'character')}]`
        : item,
    );
  if (values.length > maxItems) kept.push(`… [${plural(values.length - maxItems, 'more item')} not stored]`);
  return kept;
}

/**
 * Throws when an attempt's lists exceed the limits an attempt is recorded with (for attempts handed
 * straight to an adapter: the detectors truncate, adapters do not).
 * @throws InvalidInputError naming the list.
 */
export function assertBoundedList(values: readonly string[], name: string): void {
  if (values.length > SIZE_LIMITS.listItems + 1) {
    throw new InvalidInputError(
      `${name} has ${values.length} items; an attempt records at most ${SIZE_LIMITS.listItems} (and a marker)`,
    );
  }
  const limit = SIZE_LIMITS.itemLength + 64;
  const long = values.findIndex((item) => item.length > limit);
  if (long !== -1) {
    throw new InvalidInputError(
      `${name}[${long}] is ${(values[long] as string).length} characters long; an item has at most ${SIZE_LIMITS.itemLength} (and a truncation marker)`,
    );
  }
}

/**
 * The copy of an attempt stored as evidence in a recovery: its lists cut to
 * `SIZE_LIMITS.evidenceListItems` items of `SIZE_LIMITS.evidenceItemLength` characters (with markers).
 * @example evidence: result.evidence.map(evidenceAttempt)
 */
export function evidenceAttempt(attempt: Attempt): Attempt {
  return {
    ...attempt,
    blockers: boundedList(attempt.blockers, SIZE_LIMITS.evidenceListItems, SIZE_LIMITS.evidenceItemLength),
    completedWork: boundedList(
      attempt.completedWork,
      SIZE_LIMITS.evidenceListItems,
      SIZE_LIMITS.evidenceItemLength,
    ),
  };
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
