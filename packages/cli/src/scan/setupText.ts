/**
 * A scan's setup (the detector's options, the price book's source) as text, equal only for setups
 * that judge and price alike: a regular expression (`exemptCommands`) is written as its source and
 * flags, where JSON writes every one as `{}` (review54: two projects' exempt commands were taken for
 * one; a cache kept across a change of them).
 * @example setupText({ exemptCommands: [/^make /] }) // '{"exemptCommands":["/^make /"]}'
 */
export function setupText(setup: unknown): string {
  return JSON.stringify(setup, (_key, value: unknown) => (value instanceof RegExp ? String(value) : value));
}
