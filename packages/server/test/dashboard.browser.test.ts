/// <reference lib="dom" />
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RunningStatusServer, startStatusServer } from '../src/index.js';
import { launchChromium, watchedPage } from './browser.js';
import { causeBlockedSpin, causeRevisit, STORE_KINDS, type TestStore, useStores } from './stores.js';

let browser: Awaited<ReturnType<typeof launchChromium>>;
let context: BrowserContext;
let ctx: TestStore;
let server: RunningStatusServer;
let page: Page;
let problems: string[];

const openStore = useStores();

beforeAll(async () => {
  browser = await launchChromium();
  context = browser.context;
});
afterAll(async () => {
  await browser?.close();
});
beforeEach(async () => {
  ({ page, problems } = await watchedPage(context));
});
afterEach(async () => {
  await page?.close();
  await server?.close();
  await ctx.cleanup();
});

async function open(): Promise<void> {
  server = await startStatusServer({
    reader: ctx.reader,
    port: 0,
    clock: ctx.clock,
    followIntervalMs: 50,
  });
  await page.goto(server.url);
  await page.waitForSelector('body[data-ready="true"]');
  await page.waitForFunction(() => document.getElementById('live')?.textContent === 'connected');
}

describe.each(STORE_KINDS)('the dashboard in Chromium on %s', (kind) => {
  beforeEach(async () => {
    ctx = await openStore(kind);
  });

  it('works mounted under a path prefix, as Express middleware mounts it', async () => {
    const { createServer } = await import('node:http');
    const { createStatusHandler } = await import('../src/index.js');
    await ctx.upsertTask({ id: 'T1', status: 'pending' });
    const handler = createStatusHandler({ reader: ctx.reader, clock: ctx.clock });
    const host = createServer((req, res) => {
      if (!req.url?.startsWith('/loopguard/')) {
        res.statusCode = 204; // the host application's own routes (the browser asks for /favicon.ico)
        res.end();
        return;
      }
      req.url = req.url.slice('/loopguard'.length); // what app.use('/loopguard', handler) does
      handler(req, res);
    });
    await new Promise<void>((done) => host.listen(0, '127.0.0.1', done));
    try {
      const { port } = host.address() as { port: number };
      await page.goto(`http://127.0.0.1:${port}/loopguard/`);
      await page.waitForSelector('body[data-ready="true"]');
      expect(await page.locator('#task-total').textContent()).toBe('1');
      await page.waitForFunction(() => document.getElementById('live')?.textContent === 'connected');
      expect(problems).toEqual([]);
    } finally {
      handler.close();
      host.closeAllConnections();
      await new Promise((done) => host.close(done));
    }
  });

  it('shows a loop caused through the library live, without a reload', async () => {
    await ctx.upsertTask({ id: 'T3.4.3', title: 'Design review', status: 'in_progress' });
    await ctx.upsertTask({ id: 'T1.0.0', title: 'Quiet task', status: 'pending' });
    await open();
    expect(await page.locator('#recoveries li').count()).toBe(0);
    expect(await page.locator('#task-total').textContent()).toBe('2');

    await causeBlockedSpin(ctx, 'T3.4.3');

    const item = page.locator('#recoveries li', { hasText: 'T3.4.3' });
    await item.waitFor();
    expect(await item.locator('summary').textContent()).toMatch(
      /^unblock authority T3.4.3 blocked task spin · 3 attempts · /,
    );
    await item.locator('summary').click();
    expect(await item.locator('pre').first().textContent()).toContain(
      'UNBLOCK AUTHORITY GRANTED: Task T3.4.3',
    );
    expect(await item.locator('pre').nth(1).textContent()).toContain('"loopType": "blocked_task_spin"');
    const row = page.locator('#tasks tbody tr.looping');
    await row.waitFor();
    expect(await row.locator('td').first().textContent()).toBe('T3.4.3');
    // sess68: the newest recovery in words, as the entry's badge says it, not its topic
    expect(await row.locator('td').last().textContent()).toBe('unblock authority');
    expect(await page.locator('#tasks tbody tr').first().getAttribute('data-task-id')).toBe('T3.4.3');
    await page.waitForFunction(() => document.querySelector('#chart canvas') !== null);
    expect(problems).toEqual([]);
  });

  it('shows hostile task ids and contents as text: nothing executes', async () => {
    const hostileId = '<img src=x onerror=alert(1)>';
    await ctx.upsertTask({
      id: hostileId,
      title: '<script>alert(3)</script>',
      status: 'in_progress',
    });
    await causeRevisit(ctx, hostileId);
    await ctx.addContextEntry({
      entryType: 'decision',
      topic: 'loop_escalation',
      content: '</script><script>alert(2)</script><svg onload=alert(4)>',
      relatedTasks: [hostileId],
      metadata: { loopType: '"><img src=y onerror=alert(5)>', note: '</script>' },
    });
    await open();
    const items = page.locator('#recoveries li');
    expect(await items.count()).toBe(2);
    for (const summary of await page.locator('#recoveries summary').all()) await summary.click();
    expect(await page.locator('#recoveries pre').first().textContent()).toBe(
      '</script><script>alert(2)</script><svg onload=alert(4)>',
    );
    expect(await page.locator('#tasks tbody td').first().textContent()).toBe(hostileId);
    expect(await page.locator('#recoveries strong').first().textContent()).toBe(hostileId);
    // Live events carry hostile text too.
    await causeBlockedSpin(ctx, hostileId);
    await page.locator('#recoveries li').nth(2).waitFor();
    expect(
      await page.evaluate(
        () => document.querySelectorAll('img, svg, #recoveries script, #tasks script').length,
      ),
    ).toBe(0);
    expect(problems).toEqual([]);
  });
});

describe('the newest run in Chromium', () => {
  beforeEach(async () => {
    ctx = await openStore('sqlite');
  });

  it('shows a run that its store reports as interrupted', async () => {
    const { SqliteRunStore } = await import('@loopguard/sqlite');
    if (ctx.database === undefined) throw new Error('a SQLite store was expected');
    const runs = new SqliteRunStore({ db: ctx.database.db, clock: ctx.clock });
    runs.createRun({ id: 'r7', command: ['agent'], options: {}, cwd: '.' });
    runs.updateRun('r7', { status: 'interrupted', reason: 'the owner process is gone' });
    await open();
    expect(await page.locator('#run-box').isVisible()).toBe(true);
    expect(await page.locator('#run').textContent()).toBe('r7 interrupted');
    expect(await page.locator('#run .badge').getAttribute('class')).toBe('badge run-interrupted');
    expect(problems).toEqual([]);
  });

  it("writes the header's badges in dark text on their light colour (polish62: white on yellow)", async () => {
    const { SqliteRunStore } = await import('@loopguard/sqlite');
    if (ctx.database === undefined) throw new Error('a SQLite store was expected');
    const runs = new SqliteRunStore({ db: ctx.database.db, clock: ctx.clock });
    runs.createRun({ id: 'r8', command: ['agent'], options: {}, cwd: '/repo' });
    runs.updateRun('r8', { status: 'paused', breakerState: 'OPEN' });
    await open();
    for (const badge of ['#run .badge', '#breaker .badge']) {
      const color = await page.locator(badge).evaluate((node) => getComputedStyle(node).color);
      expect(color, badge).toBe('rgb(27, 31, 36)');
    }
  });
});

describe('the dashboard over a PostgreSQL restart in Chromium', () => {
  beforeEach(async () => {
    ctx = await openStore('postgres');
  });

  it("says the store's error while PostgreSQL is down, and no error once it is back", async () => {
    await ctx.upsertTask({ id: 'T1', status: 'in_progress' });
    await open();
    await ctx.cluster().stop();
    await page.selectOption('#verdict-filter', 'stopped'); // a read, as the page's refresh makes
    await page.waitForFunction(() => document.getElementById('live')?.textContent?.startsWith('error'));
    const down = await page.locator('#live').textContent();
    expect(down).toContain('PostgreSQL');
    expect(down).not.toContain('HTTP 503');
    await ctx.cluster().startServer();
    await page.selectOption('#verdict-filter', '');
    await page.waitForFunction(() => !document.getElementById('live')?.textContent?.startsWith('error'));
    expect(['connected', 'reconnecting…']).toContain(await page.locator('#live').textContent());
  });
});
