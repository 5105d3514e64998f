import { HttpError } from './httpError.js';

/**
 * Encodes a keyset position (the sort key of the last row of a page) as an opaque cursor.
 * @example encodeCursor(['T3.4.2']) // 'WyJUMy40LjIiXQ'
 */
export function encodeCursor(key: readonly (string | number)[]): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

/**
 * Decodes a cursor made by {@link encodeCursor} whose parts have the `types` given.
 * @throws HttpError 400 when the cursor is not one this server made.
 * @example const [taskId] = decodeCursor(cursor, ['string']);
 */
export function decodeCursor<const T extends readonly ('string' | 'number')[]>(
  cursor: string,
  types: T,
): { [K in keyof T]: T[K] extends 'string' ? string : number } {
  let key: unknown;
  try {
    key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    key = undefined;
  }
  if (
    !Array.isArray(key) ||
    key.length !== types.length ||
    key.some((part, i) => typeof part !== types[i] || (typeof part === 'number' && !Number.isFinite(part)))
  ) {
    throw new HttpError(400, 'cursor is not valid (pass the nextCursor of a previous page)');
  }
  return key as { [K in keyof T]: T[K] extends 'string' ? string : number };
}
