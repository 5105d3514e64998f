/** A 32-bit hash of a key string, for bounded sets of seen keys. */
export function keyHash(key: string): number {
  let a = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) a = Math.imul(a ^ key.charCodeAt(i), 0x01000193);
  return (a ^ key.length) >>> 0;
}
