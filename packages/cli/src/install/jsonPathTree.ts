import type { Node, NodeType } from 'jsonc-parser';

/**
 * A syntax tree of valid JSON `text` read only along `path`: the root object's members and, for
 * each key of `path` found, that value's members; every other value is a leaf with its offset and
 * length, its contents skipped. The nodes are jsonc-parser's, so the editing helpers of
 * jsonText.ts work on it. Skipping is done by native regular-expression searches (the next quote
 * or bracket, a whole string at once), so reading a path costs about what `JSON.parse` of the text
 * does, where a whole tree of Claude Code's `~/.claude.json` (tens of MB) takes seconds and GBs.
 * @param text - valid JSON (the caller checks it with `JSON.parse`: nothing here reports errors).
 * @param path - the keys to read members of, from the root.
 * @returns the root node; {@link countOf} says how often each key of `path` appeared.
 */
export function pathTree(text: string, path: readonly string[]): Node {
  const at = skipBlank(text, 0);
  return valueAt(text, at, undefined, path);
}

/** How many times `key` appears among the members of `object` (read by {@link pathTree}). */
export function countOf(object: Node, key: string): number {
  return (object.children ?? []).filter((property) => property.children?.[0]?.value === key).length;
}

/** A node while it is built (jsonc-parser's are read-only). */
type Building = { -readonly [K in keyof Node]: Node[K] };

// No quantifier inside another: a regular expression that repeats a group keeps a backtracking
// entry per repetition, and millions of them (a long array of strings, a string of escapes)
// exhaust its stack.
const BLANK = /[ \t\r\n]*/y;
/** Up to the next quote or bracket. */
const TO_STRUCTURE = /[^{}[\]"]*/y;
const SCALAR = /[^,}\]\s]+/y;

function skipBlank(text: string, at: number): number {
  BLANK.lastIndex = at;
  BLANK.test(text);
  return BLANK.lastIndex;
}

/** The offset after the string whose opening quote is at `at`: the next quote not escaped. */
function stringEnd(text: string, at: number): number {
  for (let from = at + 1; ; ) {
    const quote = text.indexOf('"', from);
    if (quote < 0) throw new Error(`unterminated string at ${at}`);
    let backslash = quote - 1;
    while (text.charCodeAt(backslash) === 0x5c) backslash--;
    if ((quote - 1 - backslash) % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}

/** The offset after the value that starts at `at`: native searches from quote to bracket. */
function valueEnd(text: string, at: number): number {
  const first = text[at];
  if (first === '"') return stringEnd(text, at);
  if (first !== '{' && first !== '[') {
    SCALAR.lastIndex = at;
    SCALAR.test(text);
    return SCALAR.lastIndex;
  }
  let depth = 0;
  for (let next = at; next < text.length; ) {
    const char = text.charCodeAt(next);
    if (char === 0x22) next = stringEnd(text, next);
    else {
      if (char === 0x7b || char === 0x5b)
        depth++; // { [
      else if (--depth === 0) return next + 1; // } ]
      next++;
    }
    TO_STRUCTURE.lastIndex = next;
    TO_STRUCTURE.test(text);
    next = TO_STRUCTURE.lastIndex;
  }
  throw new Error(`unterminated value at ${at}`);
}

function typeOf(first: string | undefined): NodeType {
  if (first === '{') return 'object';
  if (first === '[') return 'array';
  if (first === '"') return 'string';
  if (first === 't' || first === 'f') return 'boolean';
  if (first === 'n') return 'null';
  return 'number';
}

/** The node of the value at `at`; an object is read member by member when `path` is not exhausted. */
function valueAt(text: string, at: number, parent: Node | undefined, path: readonly string[]): Building {
  const type = typeOf(text[at]);
  if (type !== 'object' || path.length === 0) {
    const node: Building = { type, offset: at, length: valueEnd(text, at) - at };
    if (parent !== undefined) node.parent = parent;
    return node;
  }
  const object: Building = { type, offset: at, length: 0, children: [] };
  if (parent !== undefined) object.parent = parent;
  let next = skipBlank(text, at + 1);
  while (text[next] !== '}') {
    const keyEnd = stringEnd(text, next);
    const key = JSON.parse(text.slice(next, keyEnd)) as string;
    const property: Building = { type: 'property', offset: next, length: 0, parent: object, children: [] };
    const keyNode: Node = {
      type: 'string',
      offset: next,
      length: keyEnd - next,
      value: key,
      parent: property,
    };
    const colon = skipBlank(text, keyEnd);
    property.colonOffset = colon;
    const start = skipBlank(text, colon + 1);
    const value = valueAt(text, start, property, key === path[0] ? path.slice(1) : []);
    property.length = value.offset + value.length - next;
    property.children = [keyNode, value];
    object.children?.push(property);
    next = skipBlank(text, value.offset + value.length);
    if (text[next] === ',') next = skipBlank(text, next + 1);
  }
  object.length = next + 1 - at;
  return object;
}
