/**
 * A set printed in braces (`{x, y}`, `{'b', 'a'}`, `frozenset({2, 1})`): items separated by commas,
 * no `:` (a dict's keys keep the order they were inserted in), no braces inside.
 */
const PRINTED_SET = /\{([^{}:\n]*,[^{}:\n]*)\}/g;

/**
 * `text` with the items of every printed set in one order. Python prints a set in the order of its
 * items' hashes, and the hashes of strings change from one process to the next
 * (`PYTHONHASHSEED`): `{x, y}` and `{y, x}` are the same set printed by two runs of one unchanged
 * program. Items are split at the commas outside brackets and quotes, so `{('a', 1), ('b', 2)}`
 * keeps its tuples whole. A set of numbers is left as it is (numbers hash to themselves).
 *
 * @example canonicalSetOrder("got {'y', 'x'}"); // "got {'x', 'y'}"
 */
export function canonicalSetOrder(text: string): string {
  if (!text.includes('{')) return text;
  return text.replace(PRINTED_SET, (match, inner: string) => {
    const items = splitItems(inner);
    // Numbers hash to themselves: a set of numbers prints in the same order in every process, and
    // an order that changed (`{3, 1, 2}` → `{1, 2, 3}`) is something the program did.
    if (items.every((item) => NUMBER.test(item))) return match;
    return `{${items.sort().join(', ')}}`;
  });
}

const NUMBER = /^[-+]?[\d.]+(?:e[-+]?\d+)?$/i;

/** The items of a set's inside, split at commas outside brackets and quotes, trimmed. */
function splitItems(inner: string): string[] {
  const items: string[] = [];
  let depth = 0;
  let quote = '';
  let start = 0;
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i];
    if (quote !== '') {
      if (c === quote) quote = '';
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '(' || c === '[') depth++;
    else if ((c === ')' || c === ']') && depth > 0) depth--;
    else if (c === ',' && depth === 0) {
      items.push(inner.slice(start, i).trim());
      start = i + 1;
    }
  }
  items.push(inner.slice(start).trim());
  return items;
}
