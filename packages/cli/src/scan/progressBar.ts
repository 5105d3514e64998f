const WIDTH = 30;

/**
 * A progress line for stderr (`[#########.....] 120/400 files`), redrawn in place with `\r`; the
 * last call (done = total) ends it with a newline.
 */
export function progressLine(done: number, total: number): string {
  const filled = total === 0 ? WIDTH : Math.round((done / total) * WIDTH);
  const bar = `${'#'.repeat(filled)}${'.'.repeat(WIDTH - filled)}`;
  return `\r[${bar}] ${done}/${total} files${done === total ? '\n' : ''}`;
}
