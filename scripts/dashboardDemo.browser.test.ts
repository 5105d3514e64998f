/// <reference lib="dom" />
// The dashboard in Chromium on the demo's database (`loopguard demo`, built): what the page shows
// is what the store holds. It lives here, not in packages/server, because the demo is the CLI's
// and the server must not depend on it.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningStatusServer, startStatusServer } from '../packages/server/src/index.js';
import { launchChromium } from '../packages/server/test/browser.js';
import {
  type LoopGuardDatabase,
  openLoopGuardDatabase,
  SqliteStatusReader,
} from '../packages/sqlite/src/index.js';

const cwd = mkdtempSync(join(tmpdir(), 'loopguard-demo-dashboard-'));
let database: LoopGuardDatabase;
let server: RunningStatusServer;
let browser: Awaited<ReturnType<typeof launchChromium>>;

beforeAll(async () => {
  const bin = fileURLToPath(new URL('../packages/cli/dist/bin.js', import.meta.url));
  execFileSync(process.execPath, [bin, 'demo', '--db', 'demo.db'], { cwd, encoding: 'utf8' });
  database = openLoopGuardDatabase(join(cwd, 'demo.db'), { readonly: true });
  server = await startStatusServer({ reader: new SqliteStatusReader(database), port: 0 });
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
  database?.close();
  rmSync(cwd, { recursive: true, force: true });
});

describe("the dashboard in Chromium on the demo's database", () => {
  it('shows its sessions by verdict, its tasks, and plots every kind of entry it stores', async () => {
    const reader = new SqliteStatusReader(database);
    const [counts, sessions, entries] = await Promise.all([
      reader.sessionCounts(),
      reader.sessionPage({ limit: 25 }),
      reader.recoveryPage({ limit: 200 }),
    ]);
    const page = await browser.context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    await page.goto(server.url);
    await page.waitForSelector('body[data-ready="true"]');
    const text = async (selector: string) => (await page.locator(selector).textContent())?.trim();

    const total = Object.values(counts.byVerdict).reduce((sum, n) => sum + n, 0);
    expect(total).toBeGreaterThan(0);
    expect(await text('#session-total')).toBe(String(total));
    for (const [verdict, n] of Object.entries(counts.byVerdict))
      expect(await text(`#verdict-${verdict}`)).toBe(String(n));
    const rows = page.locator('#sessions tbody tr.session');
    expect(await rows.count()).toBe(sessions.sessions.length);
    for (const [i, session] of sessions.sessions.entries()) {
      expect(await rows.nth(i).getAttribute('title')).toBe(session.summary);
      expect(await rows.nth(i).locator('td').last().textContent()).toBe(session.verdict.replaceAll('_', ' '));
    }

    // The demo's orchestrator: its tasks are shown beside the sessions.
    expect(await page.locator('#tasks-section').isVisible()).toBe(true);
    expect(Number(await text('#task-total'))).toBeGreaterThan(0);

    // Every kind of entry stored is plotted: the recoveries, and the nudges, stops and spend entries.
    const kinds = new Set(entries.recoveries.map((r) => r.action));
    for (const kind of [
      'force_next',
      'unblock_authority',
      'escalate',
      'nudge',
      'stop',
      'spend_warning',
      'spend_stop',
    ])
      expect(kinds).toContain(kind);
    await page.waitForFunction(() => document.querySelector('#chart canvas') !== null);
    const series = (await page.locator('#chart').getAttribute('data-series'))?.split(',');
    expect(new Set(series)).toEqual(kinds);
    const legend = await page.locator('.u-legend .u-label').allTextContents();
    expect(legend.slice(1).sort()).toEqual([...kinds].map((k) => k.replaceAll('_', ' ')).sort());
    expect(problems).toEqual([]);
    await page.close();
  });
});
