// Helper scripts that the hook benchmarks run a process with: the peak RSS it prints at exit, and
// the floor a hook is measured against (read stdin, JSON.parse it).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Writes the two helper scripts into `work` and returns their paths: `rss` (a `--require` that
 * prints `maxRSS <KiB>` on stderr at exit) and `floor` (reads stdin and parses it as JSON).
 */
export function writeProcessProbes(work) {
  const rss = join(work, 'rss.cjs');
  writeFileSync(
    rss,
    "process.on('exit', () => process.stderr.write('maxRSS ' + process.resourceUsage().maxRSS + '\\n'));\n",
  );
  const floor = join(work, 'floor.cjs');
  writeFileSync(
    floor,
    "const c = []; process.stdin.on('data', (d) => c.push(d)).on('end', () => JSON.parse(Buffer.concat(c).toString('utf8')));\n",
  );
  return { rss, floor };
}
