// The check of scan's speed work: `loopguard scan --json` must print the same report, byte for byte,
// before and after. Runs the build before (a copy of `packages/`, built) and this build's
// `dist/bin.js` (workers and all) over the same files, each in a child process, and compares stdout,
// stderr and the exit code: synthetic Claude Code transcripts (the benchmark's shapes, written into
// a temporary folder and deleted afterwards), the CLI's and core's test fixtures, and the shared corpora
// (`../shared/corpora`, read in place when present), each plain, with `--price 3` and with
// `--budget 1`, and one file alone (read by the calling thread, not by workers). This build runs
// twice on each: cold (an empty scan cache) and warm (the cache the cold run wrote: files unchanged
// are not read), and both must print what the build before prints.
// Run: npx tsc -b && node scripts/bundle-hook.mjs && node scripts/scan-report-check.mjs BEFORE [megabytes=64]
// where BEFORE holds the build before, e.g. `cp -a packages /tmp/before/ && ln -s "$PWD/node_modules" /tmp/before/`
// on the commit before (built with the same two commands).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeSyntheticSessions } from './lib/syntheticTranscripts.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const [before, size = '16'] = process.argv.slice(2);
if (before === undefined) throw new Error('usage: scan-report-check.mjs BEFORE [megabytes]');
const builds = {
  before: join(resolve(before), 'packages/cli/dist/bin.js'),
  after: join(root, 'packages/cli/dist/bin.js'),
};
for (const bin of Object.values(builds)) if (!existsSync(bin)) throw new Error(`no build at ${bin}`);

const work = mkdtempSync(join(os.tmpdir(), 'loopguard-scan-check-'));
let differ = 0;
try {
  const synthetic = join(work, 'synthetic');
  await writeSyntheticSessions(synthetic, { megabytes: Number(size), projects: 5, seed: 7 });
  // a file changed in the last 2 s is read but not remembered: the warm run would read them all
  await new Promise((done) => setTimeout(done, 2100));
  const cache = join(work, 'cache');
  const fixtures = join(root, 'packages/cli/test/fixtures/scan');
  const corpora = join(root, '../shared/corpora');
  const targets = [
    ['synthetic', [synthetic]],
    [
      'test fixtures',
      [join(root, 'packages/cli/test/fixtures'), join(root, 'packages/core/test/steps/fixtures')],
    ],
    ['one file', [join(fixtures, readdirSync(fixtures).sort()[0])]],
    ...(existsSync(corpora)
      ? readdirSync(corpora).map((name) => [`corpus ${name}`, [join(corpora, name)]])
      : []),
  ];
  const variants = [[], ['--price', '3'], ['--budget', '1']];
  for (const [name, paths] of targets) {
    for (const variant of variants) {
      const outputs = {};
      rmSync(cache, { recursive: true, force: true });
      for (const [build, bin] of [...Object.entries(builds), ['warm', builds.after]]) {
        const child = spawnSync(process.execPath, [bin, 'scan', ...paths, '--json', ...variant], {
          cwd: work,
          encoding: 'utf8',
          maxBuffer: 1024 * 1024 * 1024,
          env: { ...process.env, XDG_CACHE_HOME: cache, LOOPGUARD_SCAN_CACHE: 'on' },
        });
        outputs[build] = child;
      }
      const { before: a, after: b, warm: c } = outputs;
      const same = [b, c].every(
        (x) => a.status === x.status && a.stdout === x.stdout && a.stderr === x.stderr,
      );
      if (!same) differ++;
      console.log(
        `${same ? 'same   ' : 'DIFFER '} ${name} ${variant.join(' ')}: exit ${a.status}/${b.status}, ` +
          `${a.stdout.length} characters of JSON${a.stderr === '' ? '' : `, ${a.stderr.split('\n').length - 1} lines on stderr`}`,
      );
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
console.log(differ === 0 ? 'every report the same' : `${differ} reports differ`);
process.exitCode = differ === 0 ? 0 : 1;
