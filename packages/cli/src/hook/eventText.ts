import { createHash } from 'node:crypto';
import { HookInputError } from './hookEvent.js';

/**
 * The bounds of an event's text, checked on the raw text before anything is parsed: `JSON.parse`
 * of 64 MiB of nesting or of small objects takes 20 s and 2 GB, far past the CLIs' 10 s.
 */
export const EVENT_BOUNDS = {
  /** Fields of the event object; an event with more is refused. */
  fields: 256,
  /** Levels of nesting inside one field; a deeper field is replaced by a marker. */
  depth: 64,
  /** Arrays, objects and their members in all the event's fields together; a field past it is replaced by a marker. */
  members: 65_536,
} as const;

const QUOTE = 34;
const BACKSLASH = 92;

/** Index just past the string that opens at `from` (a `"`). */
function stringEnd(text: string, from: number): number {
  let at = from + 1;
  for (;;) {
    const quote = text.indexOf('"', at);
    if (quote === -1) throw new HookInputError('the event is not JSON: a string never ends');
    let slashes = 0;
    while (text.charCodeAt(quote - 1 - slashes) === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return quote + 1;
    at = quote + 1;
  }
}

/** JSON's whitespace: space, tab, line feed, carriage return. */
function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13;
}

function skipSpace(text: string, from: number): number {
  let at = from;
  while (isSpace(text.charCodeAt(at))) at++;
  return at;
}

/** One value's end, its depth of nesting and its count of containers and members. */
function valueSpan(text: string, from: number): { end: number; depth: number; members: number } {
  const first = text[from];
  if (first === '"') return { end: stringEnd(text, from), depth: 0, members: 0 };
  if (first !== '{' && first !== '[') {
    let end = from;
    for (let c = text.charCodeAt(end); end < text.length; c = text.charCodeAt(++end)) {
      if (isSpace(c) || c === 44 || c === 125 || c === 93) break;
    }
    return { end, depth: 0, members: 0 };
  }
  let depth = 0;
  let deepest = 0;
  let members = 0;
  for (let at = from; at < text.length; at++) {
    const c = text.charCodeAt(at);
    if (c === QUOTE) at = stringEnd(text, at) - 1;
    else if (c === 123 || c === 91) {
      depth++;
      members++;
      if (depth > deepest) deepest = depth;
    } else if (c === 125 || c === 93) {
      depth--;
      if (depth === 0) return { end: at + 1, depth: deepest, members };
    } else if (c === 44) members++;
  }
  throw new HookInputError('the event is not JSON: an array or object never ends');
}

function parsePart(part: string, what: string): unknown {
  try {
    return JSON.parse(part);
  } catch {
    throw new HookInputError(`the event is not JSON: ${what}${JSON.stringify(part.slice(0, 80))}`);
  }
}

/**
 * The field `key` whose value starts at `at`, within the bounds given the fields counted so far
 * (`count` is updated): parsed, or a marker string when past them.
 * @throws HookInputError when it is not JSON, or one field too many.
 */
function readField(
  text: string,
  at: number,
  key: string,
  count: { fields: number; members: number },
  bounds: typeof EVENT_BOUNDS,
): { value: unknown; end: number } {
  if (++count.fields > bounds.fields)
    throw new HookInputError(`the event has more than ${bounds.fields} fields`);
  const span = valueSpan(text, at);
  const raw = text.slice(at, span.end);
  const over =
    span.depth > bounds.depth
      ? `nested ${span.depth} levels`
      : count.members + span.members > bounds.members
        ? `${span.members} members`
        : undefined;
  if (over === undefined) count.members += span.members;
  const sha1 = over === undefined ? '' : createHash('sha1').update(raw).digest('hex');
  const value =
    over === undefined
      ? parsePart(raw, `field ${key}:`)
      : `[… ${key} of ${raw.length} characters, ${over}, sha1 ${sha1} …]`;
  return { value, end: span.end };
}

function define(event: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(event, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * One field of an event given as a text: `[name, json]`, the field's JSON text; or
 * `[name, text, 'json or text']`, a text that is the field's JSON when it is one JSON value, else
 * the field's value itself, a string (see `eventFieldsOfToolArguments`).
 */
export type EventFieldText = readonly [name: string, text: string, reading?: 'json or text'];

/**
 * The event's fields given one by one as texts (the MCP hook tool's arguments), read within
 * {@link EVENT_BOUNDS} exactly as {@link parseEventText} reads the object they make, without that
 * object's text being built. A JSON text must be one JSON value; a `json or text` one that is not
 * (`[ERROR] connection refused`) is the string itself.
 * @throws HookInputError as {@link parseEventText}, or when a JSON text holds more than one value.
 * @example parseEventFields([['tool_input', '{"command":"ls"}']]); // { tool_input: { command: 'ls' } }
 */
export function parseEventFields(
  fields: readonly EventFieldText[],
  bounds = EVENT_BOUNDS,
): Record<string, unknown> {
  const event: Record<string, unknown> = {};
  const count = { fields: 0, members: 0 };
  for (const [key, text, reading] of fields) {
    const members = count.members;
    let value: unknown;
    try {
      value = readWholeField(text, key, count, bounds);
    } catch (error) {
      if (reading === undefined || !(error instanceof HookInputError) || count.fields > bounds.fields)
        throw error;
      count.members = members;
      value = text;
    }
    define(event, key, value);
  }
  return event;
}

/** A text that is one field's JSON value and nothing else, read as {@link readField} reads it. */
function readWholeField(
  text: string,
  key: string,
  count: { fields: number; members: number },
  bounds: typeof EVENT_BOUNDS,
): unknown {
  const { value, end } = readField(text, skipSpace(text, 0), key, count, bounds);
  if (skipSpace(text, end) < text.length)
    throw new HookInputError(`the event is not JSON: text after field ${key}`);
  return value;
}

/**
 * The event's JSON object, parsed within {@link EVENT_BOUNDS}: the raw text is walked once (strings
 * skipped natively) to find each field's extent, nesting and member count; a field within the
 * bounds is parsed as `JSON.parse` would, one past them becomes a marker string naming its size and
 * a SHA-1 of its text (so that a repeat is still seen), and is never parsed.
 * @throws HookInputError when the text is not a JSON object, or has more than `fields` fields.
 * @example parseEventText('{"tool_input":[[[…65 levels…]]]}'); // { tool_input: '[… tool_input of … sha1 … …]' }
 */
export function parseEventText(text: string, bounds = EVENT_BOUNDS): Record<string, unknown> {
  let at = skipSpace(text, 0);
  if (text[at] !== '{') {
    // a short text is parsed to tell "not JSON" from "not an object"; a long one is not parsed
    if (text.length <= 65_536) parsePart(text, '');
    throw new HookInputError('the event must be a JSON object');
  }
  const event: Record<string, unknown> = {};
  const count = { fields: 0, members: 0 };
  at = skipSpace(text, at + 1);
  let done = text[at] === '}';
  if (done) at++;
  while (!done) {
    if (text[at] !== '"') throw new HookInputError(`the event is not JSON: a field name expected at ${at}`);
    const keyEnd = stringEnd(text, at);
    const key = String(parsePart(text.slice(at, keyEnd), 'field name '));
    at = skipSpace(text, keyEnd);
    if (text[at] !== ':') throw new HookInputError(`the event is not JSON: ':' expected after field ${key}`);
    at = skipSpace(text, at + 1);
    const { value, end } = readField(text, at, key, count, bounds);
    define(event, key, value);
    at = skipSpace(text, end);
    if (text[at] !== ',' && text[at] !== '}')
      throw new HookInputError(`the event is not JSON: ',' or '}' expected after field ${key}`);
    done = text[at] === '}';
    at = skipSpace(text, at + 1);
  }
  if (skipSpace(text, at) < text.length)
    throw new HookInputError('the event is not JSON: text after its end');
  return event;
}
