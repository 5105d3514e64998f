import { InvalidInputError } from '../kernel/errors.js';

// base64url through btoa/atob rather than Buffer, so that core stays free of Node's globals.
function toBase64Url(text: string): string {
  const binary = String.fromCharCode(...new TextEncoder().encode(text));
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(cursor: string): string {
  const binary = atob(cursor.replace(/-/g, '+').replace(/_/g, '/'));
  return new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
}

/**
 * Encodes a keyset position (the sort key of the last row of a page) as an opaque cursor.
 * @example encodeStatusCursor(['T3.4.2']) // 'WyJUMy40LjIiXQ'
 */
export function encodeStatusCursor(key: readonly (string | number)[]): string {
  return toBase64Url(JSON.stringify(key));
}

/**
 * Decodes a cursor made by {@link encodeStatusCursor} whose parts have the `types` given.
 * @throws InvalidInputError naming `cursor` when it is not one a status reader made.
 * @example const [taskId] = decodeStatusCursor(cursor, ['string']);
 */
export function decodeStatusCursor<const T extends readonly ('string' | 'number')[]>(
  cursor: string,
  types: T,
): { [K in keyof T]: T[K] extends 'string' ? string : number } {
  let key: unknown;
  try {
    key = JSON.parse(fromBase64Url(cursor));
  } catch {
    key = undefined;
  }
  if (
    !Array.isArray(key) ||
    key.length !== types.length ||
    key.some((part, i) => typeof part !== types[i] || (typeof part === 'number' && !Number.isFinite(part)))
  ) {
    throw new InvalidInputError('cursor is not valid (pass the nextCursor of a previous page)');
  }
  return key as { [K in keyof T]: T[K] extends 'string' ? string : number };
}
