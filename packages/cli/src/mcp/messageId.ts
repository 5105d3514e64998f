const ID_KEY = Buffer.from('"id":');
const BACKSLASH = 92;
/** Longest id read without parsing the message: a longer one is left to `JSON.parse`. */
const ID_WINDOW = 1024;

/**
 * The id of a JSON-RPC message read from its bytes without decoding or parsing the rest, wherever
 * `"id":` stands (first or after 50 MB of arguments): inside a string every `"` is escaped, so an
 * unescaped `"id":` is a key. When the message has more than one key `id` (one in its params), which
 * is its own cannot be told without parsing: none is returned.
 * @returns the id (a number or a string), or `undefined` when none is found or it is ambiguous (the
 *   caller parses).
 * @example idOfMessage(Buffer.from('{"method":"ping","id":7}')); // 7
 */
export function idOfMessage(line: Buffer): number | string | undefined {
  const at = idKeyAt(line, 0);
  if (at === -1 || idKeyAt(line, at + 1) !== -1) return undefined;
  const from = at + ID_KEY.length;
  const head = line.toString('utf8', from, Math.min(line.length, from + ID_WINDOW));
  const value = /^\s*(\d+|"(?:[^"\\]|\\.)*")/.exec(head)?.[1];
  return value === undefined ? undefined : (JSON.parse(value) as number | string);
}

/** Where the first unescaped `"id":` at or after `from` stands; -1 when there is none. */
function idKeyAt(line: Buffer, from: number): number {
  for (let at = line.indexOf(ID_KEY, from); at !== -1; at = line.indexOf(ID_KEY, at + 1)) {
    if (at === 0 || line[at - 1] !== BACKSLASH) return at;
  }
  return -1;
}
