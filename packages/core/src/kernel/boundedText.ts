/** Deepest nesting {@link boundedText} writes out; deeper values are written as `"…"`. */
export const MAX_TEXT_DEPTH = 64;

/** Default most characters {@link boundedText} writes for a structured value (256 KiB of text). */
export const MAX_TEXT_CHARS = 256 * 1024;

/** What marks a cut: a value nested too deep, or the end of a text over its bound. */
const CUT = '…';

/**
 * A value read from the outside (parsed JSON, a tool's result handed over by a framework) as text,
 * for tools' outputs, commands and messages. Never throws and never overflows the stack:
 * - a string as it is (strings are bounded where they are read);
 * - `undefined`, `null`, a function or a symbol as `''`; a number, boolean or BigInt as its digits;
 * - anything else as JSON (keys in their order, as `JSON.stringify` writes it), where nesting deeper
 *   than {@link MAX_TEXT_DEPTH} is written `"…"`, a cycle or an unreadable field (a throwing getter or
 *   Proxy trap) `"…"`, and the text stops at `maxChars` with `…`. `String()` is never called on an
 *   object, so `{ "toString": 0 }` is `{"toString":0}`, not a `TypeError`.
 *
 * @param maxChars - most characters of a structured value's text. @default MAX_TEXT_CHARS
 * @example boundedText([{ type: { toString: 0 } }]); // '[{"type":{"toString":0}}]'
 * @example boundedText(undefined); // ''
 */
export function boundedText(value: unknown, maxChars = MAX_TEXT_CHARS): string {
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
    case 'boolean':
    case 'bigint':
      return String(value);
    case 'object':
      if (value === null) return '';
      break;
    default:
      return '';
  }
  const writer = new BoundedWriter(maxChars);
  writer.value(value, 0, new Set());
  return writer.text();
}

/** Writes JSON into parts until its bound is reached; every read is guarded. */
class BoundedWriter {
  private readonly parts: string[] = [];
  private length = 0;

  constructor(private readonly maxChars: number) {}

  get full(): boolean {
    return this.length >= this.maxChars;
  }

  text(): string {
    const text = this.parts.join('');
    return text.length > this.maxChars ? `${text.slice(0, this.maxChars)}${CUT}` : text;
  }

  private put(part: string): void {
    this.parts.push(part);
    this.length += part.length;
  }

  value(value: unknown, depth: number, stack: Set<object>): void {
    if (this.full) return;
    switch (typeof value) {
      case 'string':
        this.put(JSON.stringify(value));
        return;
      case 'number':
        this.put(Number.isFinite(value) ? String(value) : 'null');
        return;
      case 'boolean':
        this.put(String(value));
        return;
      case 'bigint':
        this.put(JSON.stringify(String(value)));
        return;
      case 'object':
        if (value === null) {
          this.put('null');
          return;
        }
        break;
      default:
        this.put('null');
        return;
    }
    if (depth >= MAX_TEXT_DEPTH || stack.has(value)) {
      this.put(JSON.stringify(CUT));
      return;
    }
    stack.add(value);
    try {
      if (Array.isArray(value)) this.array(value, depth, stack);
      else this.record(value as Record<string, unknown>, depth, stack);
    } catch {
      this.put(JSON.stringify(CUT));
    }
    stack.delete(value);
  }

  private array(items: unknown[], depth: number, stack: Set<object>): void {
    this.put('[');
    for (let i = 0; i < items.length && !this.full; i++) {
      if (i > 0) this.put(',');
      this.value(items[i], depth + 1, stack);
    }
    this.put(']');
  }

  private record(record: Record<string, unknown>, depth: number, stack: Set<object>): void {
    this.put('{');
    let first = true;
    for (const key of Object.keys(record)) {
      if (this.full) break;
      const field = record[key];
      if (field === undefined || typeof field === 'function' || typeof field === 'symbol') continue;
      this.put(`${first ? '' : ','}${JSON.stringify(key)}:`);
      first = false;
      this.value(field, depth + 1, stack);
    }
    this.put('}');
  }
}
