/**
 * A seeded mutator of JSON lines, for the fuzz test and `scripts/bench-fuzz.mjs`: each mutation
 * starts from a real record (a recorded transcript or hook event) and changes it the way a
 * hostile or broken writer would: a value replaced by one of another type or a hostile one (an
 * object whose `toString` is not a function, nesting past every bound, a long string, many keys),
 * a key removed, or the text itself cut, spliced or with a byte changed.
 */

/** A small seeded random source (mulberry32): the same seed, the same inputs. */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(rnd: () => number, items: readonly T[]): T => items[Math.floor(rnd() * items.length)] as T;

/** Raw JSON texts too deep for `JSON.stringify` to write: put in by a placeholder after writing. */
const deepText = (depth: number, open: string, close: string, inner: string) =>
  `${open.repeat(depth)}${inner}${close.repeat(depth)}`;

/** Hostile values, as raw JSON text. */
function hostile(rnd: () => number): string {
  const depth = pick(rnd, [10, 33, 65, 129, 3500, 5000, 20_000]);
  // each candidate is made only when picked: some are large
  const make = pick(rnd, [
    () => '{"toString":0}',
    () => '{"toString":0,"valueOf":0}',
    () => '[{"type":{"toString":0}}]',
    () => '{"type":{"toString":0},"text":{"toString":0}}',
    () => '{"__proto__":{"x":1},"constructor":{"prototype":0}}',
    () => deepText(depth, '[', ']', '1'),
    () => deepText(depth, '{"a":', '}', '"x"'),
    () => deepText(Math.min(depth, 5000), '[{"type":"text","text":', '}]', '"deep"'),
    () => JSON.stringify('x'.repeat(pick(rnd, [1000, 70_000, 300_000]))),
    () => JSON.stringify(`a\u0000b\ud800c${'\n'.repeat(50)}`),
    () => `{${Array.from({ length: pick(rnd, [100, 5000]) }, (_, i) => `"k${i}":${i}`).join(',')}}`,
    () => `[${Array.from({ length: pick(rnd, [100, 5000]) }, () => '{}').join(',')}]`,
    () => 'null',
    () => 'true',
    () => '-1',
    () => '1e308',
    () => '0.5',
    () => '""',
    () => '[]',
    () => '{}',
    () => '"tool_use"',
    () => '"toolu_1"',
  ]);
  return make();
}

/** The paths to every value of a JSON value (at most `max`, breadth first). */
function pathsOf(root: unknown, max = 200): Array<Array<string | number>> {
  const paths: Array<Array<string | number>> = [];
  const queue: Array<{ value: unknown; path: Array<string | number> }> = [{ value: root, path: [] }];
  for (let at = 0; at < queue.length && paths.length < max; at++) {
    const { value, path } = queue[at] as (typeof queue)[number];
    paths.push(path);
    if (value !== null && typeof value === 'object') {
      for (const [key, child] of Object.entries(value)) {
        queue.push({ value: child, path: [...path, Array.isArray(value) ? Number(key) : key] });
      }
    }
  }
  return paths;
}

function setAt(root: unknown, path: Array<string | number>, value: unknown, remove: boolean): unknown {
  if (path.length === 0) return value;
  let parent = root as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
  const last = path[path.length - 1] as string | number;
  if (remove && !Array.isArray(parent)) delete parent[last];
  else parent[last] = value;
  return root;
}

/** One mutation of `line` (a JSON text), with `others` to splice from. */
export function mutate(line: string, others: readonly string[], rnd: () => number): string {
  const kind = rnd();
  if (kind < 0.12) {
    // the text itself: cut, a byte changed, two records spliced
    const at = Math.floor(rnd() * line.length);
    const which = rnd();
    if (which < 0.35) return line.slice(0, at);
    if (which < 0.7)
      return `${line.slice(0, at)}${pick(rnd, ['"', '{', ']', '\\', ',', '\u0000', 'é'])}${line.slice(at + 1)}`;
    const other = pick(rnd, others);
    return `${line.slice(0, at)}${other.slice(Math.floor(rnd() * other.length))}`;
  }
  let root: unknown;
  try {
    root = JSON.parse(line);
  } catch {
    return line;
  }
  const changes = 1 + Math.floor(rnd() * 3);
  const holes: string[] = [];
  for (let n = 0; n < changes; n++) {
    const path = pick(rnd, pathsOf(root));
    const what = rnd();
    if (what < 0.15 && path.length > 0) root = setAt(root, path, undefined, true);
    else if (what < 0.3) {
      // a value from another record (a type the field does not expect, in a shape it may know)
      const other = safeParse(pick(rnd, others));
      root = setAt(root, path, valueAt(other, pick(rnd, pathsOf(other))), false);
    } else {
      holes.push(hostile(rnd));
      root = setAt(root, path, `\u0001HOLE${holes.length - 1}\u0001`, false);
    }
  }
  let text = JSON.stringify(root) ?? 'null';
  holes.forEach((raw, i) => {
    text = text.replace(`"\\u0001HOLE${i}\\u0001"`, () => raw);
  });
  return text;
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function valueAt(root: unknown, path: Array<string | number>): unknown {
  let value = root;
  for (const key of path) value = (value as Record<string | number, unknown> | null)?.[key];
  return value;
}
