// PostgreSQL's sessions page (100 of them) and counts, as `status --postgres` and the dashboard read
// them: this build's PgStatusReader against another built checkout's (LOOPGUARD_BENCH_BASELINE=<checkout>),
// over the same framework runs in one throwaway cluster on 127.0.0.1, interleaved, min of 15 each.
// Run: pnpm run build && LOOPGUARD_BENCH_BASELINE=<checkout> node scripts/bench-pg-sessions.mjs [runs]
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as current from '../packages/postgres/dist/index.js';
import { ThrowawayCluster } from '../packages/postgres/dist/testing/index.js';

const BASELINE = process.env.LOOPGUARD_BENCH_BASELINE;
if (BASELINE === undefined) throw new Error('set LOOPGUARD_BENCH_BASELINE to a built checkout');
const baseline = await import(pathToFileURL(join(resolve(BASELINE), 'packages/postgres/dist/index.js')).href);
const RUNS = Number(process.argv[2] ?? 3000);
const REPS = 15;

const cluster = await ThrowawayCluster.start();
try {
  const storage = await current.openPostgresStorage({
    connectionString: cluster.connectionString,
    schema: 'bench',
  });
  // every run starts; a third nudged, a fifth stopped, one in fifty guarded again and stopped again
  const rows = [];
  const t0 = Date.now() - 86_400_000;
  for (let i = 0; i < RUNS; i++) {
    const meta = (extra) =>
      JSON.stringify({ adapter: i % 2 ? 'ai-sdk' : 'langgraph', runId: `run-${i}`, ...extra });
    rows.push(`(${t0 + i * 10}, 'learning', 'run_started', '${meta({ projectDir: '/repo' })}')`);
    if (i % 3 === 0)
      rows.push(
        `(${t0 + i * 10 + 1}, 'learning', 'loop_nudge', '${meta({ loopType: 'cycle', toolCall: 3 })}')`,
      );
    if (i % 5 === 0)
      rows.push(
        `(${t0 + i * 10 + 2}, 'decision', 'loop_stop', '${meta({ loopType: 'cycle', toolCall: 5 })}')`,
      );
    if (i % 50 === 0)
      rows.push(
        `(${t0 + i * 10 + 3}, 'decision', 'loop_stop', '${meta({ loopType: 'cycle', toolCall: 7 })}')`,
      );
  }
  await storage.pool.query(
    `INSERT INTO context_entries (timestamp, entry_type, topic, metadata, content)
     SELECT t, e, topic, m::jsonb, topic FROM (VALUES ${rows.join(',')}) AS v(t, e, topic, m)`,
  );
  await storage.pool.query('ANALYZE');
  const readers = {
    baseline: new baseline.PgStatusReader(storage),
    current: new current.PgStatusReader(storage),
  };
  const once = async (reader) => {
    const start = performance.now();
    await reader.sessionPage({ limit: 100 });
    await reader.sessionCounts();
    return performance.now() - start;
  };
  const best = { baseline: Number.POSITIVE_INFINITY, current: Number.POSITIVE_INFINITY };
  for (let rep = 0; rep < REPS; rep++)
    for (const name of rep % 2 === 0 ? ['current', 'baseline'] : ['baseline', 'current'])
      best[name] = Math.min(best[name], await once(readers[name]));
  console.log(
    `${RUNS} runs (${rows.length} entries), a page of 100 and the counts, min of ${REPS}: ` +
      `baseline ${best.baseline.toFixed(1)} ms, this build ${best.current.toFixed(1)} ms, ratio ${(best.current / best.baseline).toFixed(2)}`,
  );
  await storage.close();
} finally {
  await cluster.destroy();
}
