// Takes docs/dashboard-postgres.png: starts a throwaway PostgreSQL cluster, has three "workers"
// (SharedLoopDetector) loop on a shared schema, serves it with `loopguard serve --postgres`, opens the
// dashboard in headless Chromium, lets a fourth recovery arrive live, and screenshots the page.
// Run: npx tsc -b && node scripts/screenshot-dashboard-postgres.mjs
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchScreenshotBrowser } from './lib/screenshotBrowser.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const { ManualClock, SharedLoopDetector } = await import('../packages/core/dist/index.js');
const { openPostgresStorage } = await import('../packages/postgres/dist/index.js');
const { ThrowawayCluster } = await import('../packages/postgres/dist/testing/index.js');

const cluster = await ThrowawayCluster.start();
const clock = new ManualClock(Date.now() - 20 * 60_000);
const storage = await openPostgresStorage({
  connectionString: cluster.connectionString,
  schema: 'fleet',
  clock,
});
const workers = ['worker-a', 'worker-b', 'worker-c'].map((name) => ({
  name,
  detector: new SharedLoopDetector(storage, { clock }),
}));
const tasks = [
  ['T3.4.2', 'Dashboard widgets', 'in_progress'],
  ['T3.4.3', 'Design-system review', 'in_progress'],
  ['T5.1.1', 'Payment webhook', 'in_progress'],
  ['T7.1.2', 'Config loader', 'in_progress'],
  ['T8.2.1', 'Search index', 'pending'],
  ['T9.1.1', 'Release notes', 'in_progress'],
];
for (const [id, title, status] of tasks) await storage.stateMachine.upsertTask({ id, title, status });

async function loop(worker, taskId, status, blockers) {
  for (let i = 0; i < 4; i++) {
    await worker.detector.recordAttempt(
      taskId,
      status,
      blockers,
      status === 'done' ? [`checked ${i}`] : [],
      `${worker.name}-${i}`,
    );
    clock.advance(45_000);
  }
  const result = await worker.detector.detectLoop(taskId);
  await worker.detector.applyRecovery(result);
  clock.advance(60_000);
}
await loop(workers[0], 'T3.4.2', 'done', []);
await loop(workers[1], 'T3.4.3', 'blocked', ['waiting for design approval']);
await loop(workers[2], 'T5.1.1', 'blocked', ['sandbox API key missing']);
await workers[0].detector.recordAttempt('T9.1.1', 'in_progress', [], ['drafted notes'], 'worker-a-9');
clock.advance(Date.now() - clock.now() - 60_000);

const serve = spawn(
  process.execPath,
  [
    join(root, 'packages/cli/dist/bin.js'),
    'serve',
    '--postgres',
    cluster.connectionString,
    '--schema',
    'fleet',
    '--port',
    '0',
  ],
  { stdio: ['ignore', 'pipe', 'inherit'] },
);
const url = await new Promise((resolve, reject) => {
  let out = '';
  serve.stdout.on('data', (chunk) => {
    out += chunk;
    const match = /loopguard dashboard: (http:\S+)/.exec(out);
    if (match) resolve(match[1]);
  });
  serve.on('exit', (code) => reject(new Error(`serve exited with ${code}: ${out}`)));
});
console.log(`serving ${url}`);
const browser = await launchScreenshotBrowser();
const { context } = browser;
try {
  const page = await context.newPage();
  await page.goto(url);
  await page.waitForSelector('body[data-ready="true"]');
  await page.waitForFunction(() => document.getElementById('live')?.textContent === 'connected');
  await loop(workers[1], 'T3.4.3', 'blocked', ['waiting for design approval']); // arrives live
  await page.locator('#recoveries li').nth(3).waitFor();
  await page.waitForTimeout(800);
  await page.locator('#recoveries summary').first().click();
  await page.screenshot({ path: join(root, 'docs/dashboard-postgres.png') });
  console.log('wrote docs/dashboard-postgres.png');
} finally {
  await browser.close();
  serve.kill('SIGTERM');
  await storage.close();
  await cluster.destroy();
}
