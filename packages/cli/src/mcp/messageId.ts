const ID_KEY = Buffer.from('"id":');
const BACKSLASH = 92;
/** Longest id read without parsing the message: a longer one is left to `JSON.parse`. */
const ID_WINDOW = 1024;

/**
 * The id of a JSON-RPC message whose other members hold only strings (no key `id` but its own), read from its bytes without
 * decoding or parsing the rest, wherever `"id":` stands (first or after 50 MB of arguments): inside
 * a string every `"` is escaped, so the first unescaped `"id":` is the message's own.
 * @returns the id (a number or a string), or `undefined` when none is found (the caller parses).
 * @example idOfMessage(Buffer.from('{"method":"ping","id":7}')); // 7
 */
export function idOfMessage(line: Buffer): number | string | undefined {
  for (let at = line.indexOf(ID_KEY); at !== -1; at = line.indexOf(ID_KEY, at + 1)) {
    if (at > 0 && line[at - 1] === BACKSLASH) continue;
    const from = at + ID_KEY.length;
    const head = line.toString('utf8', from, Math.min(line.length, from + ID_WINDOW));
    const value = /^\s*(\d+|"(?:[^"\\]|\\.)*")/.exec(head)?.[1];
    return value === undefined ? undefined : (JSON.parse(value) as number | string);
  }
  return undefined;
}
