import { type Node, type ParseError, parseTree, printParseErrorCode } from 'jsonc-parser';

/**
 * Edits JSON text in place: a value is added or taken out by inserting or deleting its own bytes,
 * so everything else (numbers as written, key order, duplicate keys, `__proto__`, comments,
 * whitespace) stays byte for byte. Taking out what was added gives back the text it was added to.
 */

/** A JSON (or JSON with comments) text and its syntax tree, with offsets into the text. */
export interface JsonText {
  /** The text. */
  readonly text: string;
  /** Its root value. */
  readonly root: Node;
}

/**
 * Parses `text` into a {@link JsonText}; a blank text reads as `{}` and a line end.
 * @param allowComments - whether `//` and `/* *\/` comments are allowed. @default false
 * @throws Error naming the first syntax error and its line
 */
export function parseJsonText(text: string, allowComments = false): JsonText {
  if (text.trim() === '') return parseJsonText(`{}${text.includes('\r\n') ? '\r\n' : '\n'}`, allowComments);
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { disallowComments: !allowComments, allowTrailingComma: false });
  const first = errors[0];
  if (first !== undefined) {
    const line = text.slice(0, first.offset).split('\n').length;
    throw new Error(`${printParseErrorCode(first.error)} at line ${line}`);
  }
  if (root === undefined) throw new Error('no value');
  return { text, root };
}

/** The value of `key` in `object` (the last one when the key is there twice, as `JSON.parse` reads it). */
export function memberValue(object: Node | undefined, key: string): Node | undefined {
  if (object?.type !== 'object') return undefined;
  return object.children?.findLast((property) => property.children?.[0]?.value === key)?.children?.[1];
}

/** The members of an object (its properties) or an array (its elements). */
export function membersOf(node: Node): Node[] {
  return node.children ?? [];
}

/** The text with `key: value` added as the last property of `object`. */
export function appendProperty(json: JsonText, object: Node, key: string, value: unknown): string {
  const colon = layoutOf(json).compact ? ':' : ': ';
  return appendMember(
    json,
    object,
    (indent) => `${JSON.stringify(key)}${colon}${render(json, value, indent)}`,
  );
}

/** The text with `value` added as the last element of `array`. */
export function appendElement(json: JsonText, array: Node, value: unknown): string {
  return appendMember(json, array, (indent) => render(json, value, indent));
}

/**
 * The text without `member` (a property or an element of its parent), its separator and the space
 * around it: the exact inverse of {@link appendProperty} and {@link appendElement}.
 */
export function removeMember(json: JsonText, member: Node): string {
  const { text } = json;
  const parent = member.parent?.type === 'property' ? member.parent : member;
  const container = parent.parent;
  if (container === undefined) throw new Error('the root value has no container to be removed from');
  const members = membersOf(container);
  const index = members.indexOf(parent);
  const previous = members[index - 1];
  const next = members[index + 1];
  if (previous !== undefined) return cut(text, end(previous), end(parent));
  if (next !== undefined) return cut(text, parent.offset, next.offset);
  // the only member: the container is left empty, with what was between its brackets if not blank
  const inside = text.slice(container.offset + 1, end(container) - 1);
  const before = inside.slice(0, parent.offset - container.offset - 1);
  const after = inside.slice(end(parent) - container.offset - 1);
  const kept = `${before}${after}`.trim() === '' ? '' : after;
  return `${text.slice(0, container.offset + 1)}${kept}${text.slice(end(container) - 1)}`;
}

function appendMember(json: JsonText, container: Node, member: (indent: string) => string): string {
  const { text } = json;
  const layout = layoutOf(json);
  const last = membersOf(container).at(-1);
  if (layout.compact) {
    const at = last === undefined ? container.offset + 1 : end(last);
    return `${text.slice(0, at)}${last === undefined ? '' : ','}${member('')}${text.slice(at)}`;
  }
  const outer = lineIndent(
    text,
    container.parent?.type === 'property' ? container.parent.offset : container.offset,
  );
  const indent =
    last !== undefined && onOwnLine(text, last.offset) ? lineIndent(text, last.offset) : outer + layout.unit;
  if (last !== undefined) {
    return `${text.slice(0, end(last))},${layout.eol}${indent}${member(indent)}${text.slice(end(last))}`;
  }
  const open = container.offset + 1;
  const blank = text.slice(open, end(container) - 1).trim() === '';
  const closing = blank ? `${layout.eol}${outer}` : '';
  const rest = blank ? text.slice(end(container) - 1) : text.slice(open);
  return `${text.slice(0, open)}${layout.eol}${indent}${member(indent)}${closing}${rest}`;
}

interface Layout {
  /** The text is one line with members: added values are written on it, without spaces. */
  compact: boolean;
  /** One level of indentation. */
  unit: string;
  /** The line ending. */
  eol: string;
}

function layoutOf({ text, root }: JsonText): Layout {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const indented = /^([ \t]+)["{[\]}]/m.exec(text)?.[1];
  const unit =
    indented === undefined
      ? '  '
      : indented.startsWith('\t')
        ? '\t'
        : ' '.repeat(Math.min(indented.length, 8));
  return { compact: membersOf(root).length > 0 && !text.trim().includes('\n'), unit, eol };
}

function render(json: JsonText, value: unknown, indent: string): string {
  const layout = layoutOf(json);
  if (layout.compact) return JSON.stringify(value);
  return JSON.stringify(value, null, layout.unit).replaceAll('\n', `${layout.eol}${indent}`);
}

function end(node: Node): number {
  return node.offset + node.length;
}

function cut(text: string, from: number, to: number): string {
  return `${text.slice(0, from)}${text.slice(to)}`;
}

function lineStart(text: string, offset: number): number {
  return text.lastIndexOf('\n', offset - 1) + 1;
}

function lineIndent(text: string, offset: number): string {
  return /^[ \t]*/.exec(text.slice(lineStart(text, offset), offset))?.[0] ?? '';
}

function onOwnLine(text: string, offset: number): boolean {
  return text.slice(lineStart(text, offset), offset).trim() === '';
}
