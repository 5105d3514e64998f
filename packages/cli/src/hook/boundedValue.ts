import { createHash, type Hash } from 'node:crypto';

/**
 * The bounds of one JSON value of an event (a `tool_input`, an object `tool_response`) as the hook
 * hands it to the detector. They bound the work of everything after them (the detector's
 * normalising, hashing and stored state) whatever the event holds below its 64 MiB limit.
 */
export const VALUE_BOUNDS = {
  /** Levels of arrays and objects kept; a deeper value is replaced by a marker. */
  depth: 32,
  /** Members (object keys and array elements, at every level together) kept; the rest are one marker. */
  members: 2048,
  /** Characters of strings and keys kept, all together; past them each string keeps only a marker. */
  chars: 65_536,
  /** Characters of one string or key kept before it is cut. */
  stringChars: 16_384,
} as const;

/**
 * A text cut to `max` characters when longer: its first and last halves around one line naming its
 * length and a SHA-1 of the whole. The same text gives the same cut; texts that differ anywhere
 * give different cuts (so a repeat is still seen, and so is progress).
 * @example cutText('x'.repeat(100), 10); // 'xxxxx\n[… 100 characters, sha1 …]\nxxxxx'
 */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  const half = Math.floor(max / 2);
  const sha1 = createHash('sha1').update(text).digest('hex');
  return `${text.slice(0, half)}\n[… ${text.length} characters, sha1 ${sha1} …]\n${text.slice(text.length - half)}`;
}

/** A marker standing for what was left out, with a fingerprint of it (a change in it is still seen). */
function marker(what: string, digest: string): string {
  return `[… ${what}, sha1 ${digest} …]`;
}

/**
 * Feeds `value` to `hash` in a canonical form, iteratively (no recursion: any depth), so that two
 * values hash alike exactly when they are the same JSON.
 */
function feed(hash: Hash, value: unknown): void {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const next = stack.pop();
    if (next === null || typeof next !== 'object') {
      hash.update(`${typeof next}:${typeof next === 'string' ? next.length : ''}:`);
      hash.update(typeof next === 'string' ? next : String(next as number | boolean | undefined));
    } else if (Array.isArray(next)) {
      hash.update(`[${next.length}`);
      for (let i = next.length - 1; i >= 0; i--) stack.push(next[i]);
    } else {
      const keys = Object.keys(next);
      hash.update(`{${keys.length}`);
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i] as string;
        stack.push((next as Record<string, unknown>)[key], key);
      }
    }
  }
}

function digestOf(values: unknown[]): string {
  const hash = createHash('sha1');
  for (const value of values) feed(hash, value);
  return hash.digest('hex');
}

/**
 * A JSON value (as `JSON.parse` gives it) within {@link VALUE_BOUNDS}: a copy, equal to it when it
 * is within them, else where what is past them is replaced by markers that name it and carry its
 * SHA-1 (a deeper level, the members past the count, the middle of a long string). Iterative:
 * nesting of any depth is walked without recursion, and every later step (`JSON.stringify`, the
 * detector's normalising) works on at most the bounds.
 * @example boundedValue({ command: 'ls' }); // { command: 'ls' } (within the bounds: an equal value)
 */
export function boundedValue(value: unknown, bounds = VALUE_BOUNDS): unknown {
  let members = 0;
  let chars = 0;
  const text = (s: string): string => {
    const kept = Math.min(bounds.stringChars, Math.max(0, bounds.chars - chars));
    const out =
      s.length <= kept ? s : kept === 0 ? marker(`${s.length} characters`, digestOf([s])) : cutText(s, kept);
    chars += Math.min(s.length, kept);
    return out;
  };
  const copy = (v: unknown, depth: number): unknown => {
    if (typeof v === 'string') return text(v);
    if (v === null || typeof v !== 'object') return v;
    if (depth >= bounds.depth) return marker(`nested deeper than ${bounds.depth} levels`, digestOf([v]));
    return v; // filled in by the walk below
  };
  const root = copy(value, 0);
  if (root === null || typeof root !== 'object') return root;
  // Breadth-first over containers: each is copied once, its members bounded as they are met.
  const queue: Array<{ from: unknown; to: Record<string, unknown> | unknown[]; depth: number }> = [];
  const container = (from: unknown, depth: number): Record<string, unknown> | unknown[] => {
    const to: Record<string, unknown> | unknown[] = Array.isArray(from) ? [] : {};
    queue.push({ from, to, depth });
    return to;
  };
  const member = (v: unknown, depth: number): unknown => {
    const c = copy(v, depth);
    return c !== null && typeof c === 'object' ? container(c, depth) : c;
  };
  const top = container(root, 0);
  for (let at = 0; at < queue.length; at++) {
    const { from, to, depth } = queue[at] as (typeof queue)[number];
    if (Array.isArray(from)) {
      const list = to as unknown[];
      const room = Math.max(0, bounds.members - members);
      for (let i = 0; i < Math.min(room, from.length); i++) list.push(member(from[i], depth + 1));
      members += Math.min(room, from.length);
      if (from.length > room)
        list.push(marker(`${from.length - room} more elements`, digestOf(from.slice(room))));
    } else {
      const record = to as Record<string, unknown>;
      const source = from as Record<string, unknown>;
      const keys = Object.keys(source);
      const room = Math.max(0, bounds.members - members);
      for (const key of keys.slice(0, room)) {
        // defineProperty: a `__proto__` key stays a plain key, as JSON.parse made it
        Object.defineProperty(record, text(key), {
          value: member(source[key], depth + 1),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      members += Math.min(room, keys.length);
      if (keys.length > room) {
        const rest = keys.slice(room);
        record['…'] = marker(`${rest.length} more keys`, digestOf(rest.flatMap((k) => [k, source[k]])));
      }
    }
  }
  return top;
}
