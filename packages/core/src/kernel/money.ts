/**
 * Dollars as every message prints them: `$4.10`.
 * @example dollars(4.1); // '$4.10'
 */
export function dollars(value: number): string {
  return `$${value.toFixed(2)}`;
}
