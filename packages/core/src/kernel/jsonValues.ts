/**
 * A JSON value as an object record, or `undefined` when it is not a (non-array) object: how every
 * reader of agent events looks into a value it has not validated.
 * @example recordOf({ a: 1 }); // { a: 1 }
 * @example recordOf([1]); // undefined
 */
export function recordOf(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/**
 * A JSON value as a finite number, or 0: how the readers of agent events take a count they have not
 * validated (a token count that is missing, a string or `NaN` counts nothing).
 * @example numberOf(12); // 12
 * @example numberOf('12'); // 0
 */
export function numberOf(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}
