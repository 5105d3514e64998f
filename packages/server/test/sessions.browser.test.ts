/// <reference lib="dom" />
import { ManualClock } from '@loopguard/core';
import type { StatusReader } from '@loopguard/core/internal';
import {
  openLoopGuardDatabase,
  SqliteHookSessionStore,
  SqliteRunStore,
  SqliteSpendStore,
  SqliteStatusReader,
} from '@loopguard/sqlite';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RunningStatusServer, startStatusServer } from '../src/index.js';
import { launchChromium, watchedPage } from './browser.js';
import { HOOK_SESSIONS, hooksOnlyDatabase } from './hookSessions.js';

let browser: Awaited<ReturnType<typeof launchChromium>>;
let context: BrowserContext;
let server: RunningStatusServer | undefined;
let store: ServedStore | undefined;

/** A store the test serves; `cleanup` runs after the test. */
interface ServedStore {
  reader: StatusReader;
  clock: ManualClock;
  cleanup(): void;
}
let page: Page;
let problems: string[];

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
  server = undefined;
  store?.cleanup();
  store = undefined;
});

async function open(
  db: ServedStore,
  hooksOff?: () => string | undefined,
  hooksConfigured?: () => string | undefined,
  pricesBelowLibrary?: () => string | undefined,
): Promise<void> {
  store = db;
  server = await startStatusServer({
    reader: db.reader,
    port: 0,
    clock: db.clock,
    followIntervalMs: 50,
    ...(hooksOff === undefined ? {} : { hooksOff }),
    ...(hooksConfigured === undefined ? {} : { hooksConfigured }),
    ...(pricesBelowLibrary === undefined ? {} : { pricesBelowLibrary }),
  });
  await page.goto(server.url);
  await page.waitForSelector('body[data-ready="true"]');
  await page.waitForFunction(() => document.getElementById('live')?.textContent === 'connected');
}

const text = async (selector: string) => (await page.locator(selector).textContent())?.trim();
const cells = async (row: number) =>
  (await page.locator('#sessions tbody tr.session').nth(row).locator('td').allTextContents()).map((t) =>
    t.trim(),
  );

describe('the dashboard in Chromium on a database written only by the hooks', () => {
  it('counts sessions by verdict in the header and hides the empty task panels', async () => {
    await open(hooksOnlyDatabase());
    expect(await text('#session-total')).toBe('4');
    expect(await text('#verdict-stopped')).toBe('1');
    expect(await text('#verdict-stopped_on_spend')).toBe('1');
    expect(await text('#verdict-nudged')).toBe('1');
    expect(await text('#verdict-clean')).toBe('1');
    expect(await text('#verdict-running')).toBe('0');
    expect(await text('#spent')).toBe('$0.52');
    expect(await page.locator('#tasks-section').isVisible()).toBe(false);
    expect(await page.locator('#task-total').isVisible()).toBe(false);
    expect(await page.locator('#summary > div:visible > dt').allTextContents()).toEqual([
      'Sessions',
      'Running',
      'Clean',
      'Nudged',
      'Stopped',
      'Stopped on spend',
      'Spent',
      'Live',
    ]);
    expect(problems).toEqual([]);
  });

  it('lists the sessions newest first: agent, tool calls, nudges, the stop at its call, dollars against the budget, verdict', async () => {
    await open(hooksOnlyDatabase());
    expect(await page.locator('#sessions tbody tr.session').count()).toBe(4);
    const [stopped, spent, nudged, clean] = await Promise.all([0, 1, 2, 3].map(cells));
    expect(stopped).toEqual([
      'claude',
      `${HOOK_SESSIONS.stopped}/home/dev/shop`,
      expect.any(String),
      expect.any(String),
      '4',
      '1',
      'same error at call 4',
      '–',
      'stopped',
    ]);
    expect(spent?.slice(4)).toEqual([
      '12',
      '0',
      'budget reached at call 12',
      '$0.52 of $0.50',
      'stopped on spend',
    ]);
    expect(nudged?.slice(0, 1).concat(nudged.slice(4))).toEqual(['codex', '7', '2', '–', '–', 'nudged']);
    expect(clean?.slice(4)).toEqual(['9', '0', '–', '–', 'clean']);
    expect(problems).toEqual([]);
  });

  it("shows a session's spend as its summary says it: a cent fraction is not $0.00, tokens without a price are named", async () => {
    const db = hooksOnlyDatabase();
    const spent = (sessionId: string, totals: Record<string, number>) => {
      const scope = `session:codex:${sessionId}`;
      new SqliteSpendStore({ db: db.database.db, clock: db.clock }).update([scope], () => ({
        next: new Map([[scope, { ledger: { totals }, offset: 10, caps: { maxCostUsd: 5 } }]]),
        result: null,
      }));
    };
    spent(HOOK_SESSIONS.nudged, { tokens: 180, costUsd: 0.00025, unpricedTokens: 120 });
    await open(db);
    const nudged = await cells(2);
    expect(nudged[0]).toBe('codex');
    expect(nudged[7]).toBe('$0.00025 of $5.00 (and 120 tokens of unpriced models)');
    await page.locator('#sessions tbody tr.session').nth(2).click();
    expect(await page.locator('#sessions tr.session-detail .session-summary').textContent()).toContain(
      nudged[7],
    );
    // its facts and the page's total say the cent fraction as the summary does, not $0.00
    expect(await page.locator('#sessions tr.session-detail .hint').first().textContent()).toContain(
      '180 tokens, $0.00025',
    );
    expect((await page.locator('#spent').getAttribute('title'))?.split('\n')).toContain(
      'codex: $0.00025, 180 tokens',
    );
    expect(problems).toEqual([]);
  });

  it("shows a framework adapter's runs: one stopped on spend with its dollars against its budget, one loopguard never spoke to (adapters44)", async () => {
    const db = hooksOnlyDatabase();
    db.database.stateMachine.addContextEntry({
      entryType: 'decision',
      topic: 'spend_stop',
      content: 'loopguard: this run reached its budget ($0.06 of $0.05); loopguard stopped it.',
      relatedTasks: ['T1'],
      metadata: {
        adapter: 'ai-sdk',
        runId: 'spend-run',
        scope: 'session',
        reason: 'cap',
        spent: { replies: 3, tokens: 45, costUsd: 0.06, unpricedTokens: 0, unpricedModels: [] },
        caps: { maxCostUsd: 0.05 },
      },
    });
    // a run loopguard never spoke to: its run_started entry only (an hour ago, as the hook sessions)
    db.database.stateMachine.addContextEntry({
      entryType: 'learning',
      topic: 'run_started',
      content: 'langgraph run clean-run started',
      relatedTasks: ['T2'],
      metadata: { adapter: 'langgraph', runId: 'clean-run' },
    });
    await open(db);
    const clean = page.locator('#sessions tbody tr.session', { hasText: 'clean-run' });
    const cleanCells = (await clean.locator('td').allTextContents()).map((t) => t.trim());
    expect([cleanCells[0], ...cleanCells.slice(5)]).toEqual(['langgraph', '0', '–', '–', 'clean']);
    expect(await text('#verdict-clean')).toBe('2');
    const row = page.locator('#sessions tbody tr.session', { hasText: 'spend-run' });
    const cells = (await row.locator('td').allTextContents()).map((t) => t.trim());
    expect(cells[0]).toBe('ai-sdk');
    expect(cells.slice(6)).toEqual(['budget reached', '$0.06 of $0.05', 'stopped on spend']);
    await row.click();
    expect(await page.locator('#sessions tr.session-detail .session-summary').textContent()).toContain(
      'stopped on spend (budget reached), $0.06 of $0.05',
    );
    expect(await text('#spent')).toBe('$0.58');
    expect(problems).toEqual([]);
  });

  it("says the dollars spent in the header as the sessions' summaries round them: a cent fraction is not $0.00 (qa41)", async () => {
    const db = hooksOnlyDatabase();
    db.database.db.exec('DELETE FROM spend_ledgers');
    const scope = `session:codex:${HOOK_SESSIONS.nudged}`;
    new SqliteSpendStore({ db: db.database.db, clock: db.clock }).update([scope], () => ({
      next: new Map([[scope, { ledger: { totals: { tokens: 1_248, costUsd: 0.0043 } }, offset: 10 }]]),
      result: null,
    }));
    await open(db);
    expect(await text('#spent')).toBe('$0.0043');
    expect(await page.locator('#spent').getAttribute('title')).toBe('codex: $0.0043, 1,248 tokens');
    expect((await cells(2))[7]).toBe('$0.0043');
    expect(problems).toEqual([]);
  });

  it("says the header's dollars as the rows do: a session's $0.504 of $0.50 is not $0.50 in the total (sess64)", async () => {
    const db = hooksOnlyDatabase();
    const scope = `session:gemini:${HOOK_SESSIONS.spent}`;
    new SqliteSpendStore({ db: db.database.db, clock: db.clock }).update([scope], () => ({
      next: new Map([
        [
          scope,
          {
            ledger: { totals: { tokens: 52_000, costUsd: 0.5039999999999999 } },
            offset: 10,
            caps: { maxCostUsd: 0.5 },
          },
        ],
      ]),
      result: null,
    }));
    await open(db);
    expect((await cells(1))[7]).toBe('$0.504 of $0.50');
    expect(await text('#spent')).toBe('$0.504');
    expect(await page.locator('#spent').getAttribute('title')).toBe('gemini: $0.504, 52,000 tokens');
    expect(problems).toEqual([]);
  });

  it('fits a phone-wide window: the page never scrolls sideways, the sessions table scrolls in its own panel (qa54)', async () => {
    await page.setViewportSize({ width: 420, height: 900 });
    await open(hooksOnlyDatabase());
    const widths = await page.evaluate(() => ({
      page: document.documentElement.scrollWidth,
      window: window.innerWidth,
      header: document.querySelector('header')?.getBoundingClientRect().width,
      table: document.getElementById('sessions')?.scrollWidth,
      panel: document.getElementById('sessions')?.parentElement?.clientWidth,
    }));
    expect(widths.page, JSON.stringify(widths)).toBe(widths.window);
    expect(widths.header).toBe(widths.window);
    // the table keeps its columns readable and scrolls inside its panel instead
    expect(widths.table).toBeGreaterThan(widths.panel ?? 0);
    await page.locator('#sessions tbody tr.session').first().click();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBe(widths.window);
    // an opened session's sentence and entries wrap within the window, not across the wide table
    await page.locator('#sessions tr.session-detail .session-entries details').first().waitFor();
    const rights = await page
      .locator('#sessions tr.session-detail .session-summary, #sessions tr.session-detail .session-entries')
      .evaluateAll((nodes) => nodes.map((node) => node.getBoundingClientRect().right));
    for (const right of rights) expect(right).toBeLessThanOrEqual(widths.window);
    expect(problems).toEqual([]);
  });

  it("shows each session's verdict on a 390 px phone without scrolling sideways (polish61)", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await open(hooksOnlyDatabase());
    const seen = async () =>
      page.locator('#sessions tbody tr.session .badge.verdict').evaluateAll((badges) =>
        badges.map((badge) => {
          const box = badge.getBoundingClientRect();
          const y = box.top + box.height / 2;
          const hit = document.elementFromPoint(box.left + box.width / 2, y);
          // and no sliver of another column between the verdict and the panel's right edge
          const panel = badge.closest('section') as HTMLElement;
          const edge = document.elementFromPoint(panel.getBoundingClientRect().right - 2, y);
          const cell = badge.closest('td') as HTMLElement;
          return {
            inWindow: box.left >= 0 && box.right <= window.innerWidth,
            onTop: badge.contains(hit) && (edge === panel || cell.contains(edge)),
          };
        }),
      );
    await page.locator('#sessions').scrollIntoViewIfNeeded();
    expect(await seen()).toEqual(Array(4).fill({ inWindow: true, onTop: true }));
    // and still there once the table is scrolled to its start and to its end in its panel
    for (const left of [10_000, 0]) {
      await page.evaluate((x) => document.getElementById('sessions-section')?.scrollTo({ left: x }), left);
      expect(await seen()).toEqual(Array(4).fill({ inWindow: true, onTop: true }));
    }
    expect(
      await page
        .locator('#sessions thead th')
        .last()
        .evaluate((th) => th.getBoundingClientRect().right),
    ).toBeLessThanOrEqual(390);
    expect(problems).toEqual([]);
  });

  it('opens a session: its summary, its nudge and stop with their evidence', async () => {
    await open(hooksOnlyDatabase());
    await page.locator('#sessions tbody tr.session').first().click();
    const detail = page.locator('#sessions tr.session-detail');
    await detail.locator('.session-entries details').nth(1).waitFor();
    expect(await detail.locator('.session-summary').textContent()).toBe(
      'stopped by loopguard at call 4 (same error), 4 tool calls ran, 1 nudge',
    );
    const summaries = await detail.locator('.session-entries summary').allTextContents();
    // sess70: the session as status names it, not its entries' key (`claude:a1b2c3d4-stopped`)
    expect(summaries[0]).toMatch(/^nudge claude session a1b2c3d4-stopped same error · call 3 · /);
    expect(summaries[1]).toMatch(/^stop claude session a1b2c3d4-stopped same error · call 4 · /);
    await detail.locator('.session-entries summary').nth(1).click();
    const evidence = await detail.locator('.session-entries pre').nth(3).textContent();
    expect(JSON.parse(evidence ?? '{}').evidence).toHaveLength(4);
    // qa53: the evidence speaks of tool calls, as the message above it does: no step index
    // (`"since": 3` beside "since call 2" read as a contradiction)
    const shown = JSON.parse(evidence ?? '{}');
    expect(shown).toMatchObject({ loopType: 'same_error', toolCall: 4 });
    expect(Object.keys(shown)).not.toContain('step');
    expect(Object.keys(shown)).not.toContain('since');
    for (const item of shown.evidence) {
      expect(Object.keys(item)).not.toContain('step');
      expect(item.call).toEqual(expect.any(Number));
    }
    // the spend stop's session shows its warning and its stop
    await page.locator('#sessions tbody tr.session', { hasText: HOOK_SESSIONS.spent }).click();
    const spend = page.locator('#sessions tr.session-detail', { hasText: 'stopped on spend' });
    await spend.locator('.session-entries details').nth(1).waitFor();
    expect(await spend.locator('.session-entries summary').allTextContents()).toEqual([
      expect.stringMatching(/^spend warning gemini session e5f6a7b8-spent nearing its budget · call 9 · /),
      expect.stringMatching(/^spend stop gemini session e5f6a7b8-spent budget reached · call 12 · /),
    ]);
    // sessions57: its details say the reason as the summary does, not the stored key (`"cap"`)
    await spend.locator('.session-entries summary').nth(1).click();
    const stopDetails = JSON.parse(
      (await spend.locator('.session-entries pre').nth(3).textContent()) ?? '{}',
    );
    expect(stopDetails).toMatchObject({ reason: 'budget reached', toolCall: 12 });
    // sessions59: its dollars as every door says them, its time in the page's local time
    expect(stopDetails.spent.costUsd).toBe('$0.504');
    expect(stopDetails.caps.maxCostUsd).toBe('$0.50');
    // written when the entry was: the time its summary says
    const summary = (await spend.locator('.session-entries summary').nth(1).textContent()) ?? '';
    expect(stopDetails.detectedAt).toBe(summary.split(' · ').at(-1));
    // closing it again
    await page.locator('#sessions tbody tr.session').first().click();
    expect(await page.locator('#sessions tr.session-detail').count()).toBe(1);
    expect(problems).toEqual([]);
  });

  it("shows a subagent's run as a session of its own, with its type and the session it belongs to", async () => {
    const db = hooksOnlyDatabase();
    new SqliteHookSessionStore({ db: db.database.db, clock: db.clock }).update(
      { agent: 'claude', sessionId: 'agent-7f2e', projectDir: '/home/dev/shop' },
      () => ({
        next: {
          snapshot: '{}',
          lastResults: '[]',
          steps: 6,
          toolCalls: 3,
          parentSessionId: HOOK_SESSIONS.stopped,
          agentType: 'Explore',
          nudges: 1,
          stops: 0,
          enabled: true,
        },
        result: null,
      }),
    );
    db.database.stateMachine.addContextEntry({
      entryType: 'learning',
      topic: 'loop_nudge',
      content: 'Loop detected (same_error): the subagent ran `npm test` 3 times.',
      relatedTasks: ['claude:agent-7f2e'],
      metadata: {
        loopType: 'same_error',
        toolCall: 3,
        agent: 'claude',
        sessionId: 'agent-7f2e',
        parentSessionId: HOOK_SESSIONS.stopped,
      },
    });
    await open(db);
    const row = page.locator('#sessions tbody tr.session').first();
    // sess70: whose subagent it is, as `status` and `scan` name it (the row said `subagent Explore`
    // and, for Codex, `subagent default`: no door said whose)
    expect(await row.locator('td').nth(1).textContent()).toBe(
      `agent-7f2e subagent of ${HOOK_SESSIONS.stopped}/home/dev/shop`,
    );
    await row.click();
    expect(await page.locator('#sessions tr.session-detail .hint').first().textContent()).toContain(
      `claude session agent-7f2e · in /home/dev/shop · subagent of ${HOOK_SESSIONS.stopped} (Explore)`,
    );
    // its session's own detail lists what loopguard did to the subagent too, naming it
    await row.click();
    // the session's own row (the subagent's names it too)
    const ownId = page.locator('.session-id', { hasText: HOOK_SESSIONS.stopped });
    await page.locator('#sessions tbody tr.session').filter({ has: ownId }).click();
    const parent = page.locator('#sessions tr.session-detail');
    await parent.locator('.session-entries details').nth(2).waitFor();
    expect(await parent.locator('.session-entries summary').allTextContents()).toEqual([
      expect.stringMatching(/^nudge claude session a1b2c3d4-stopped same error · call 3 · /),
      expect.stringMatching(/^stop claude session a1b2c3d4-stopped same error · call 4 · /),
      // the subagent's, as `status --session` of its session names it (`(subagent agent-7f2e)`)
      expect.stringMatching(/^nudge claude subagent agent-7f2e same error · call 3 · /),
    ]);
    // doors67: and its sentence names the subagent, as `status` and the status line say it
    expect(await parent.locator('.session-summary').textContent()).toBe(
      'stopped by loopguard at call 4 (same error), 4 tool calls ran, 1 nudge; 1 subagent nudged',
    );
    expect(problems).toEqual([]);
  });

  it('pages the sessions and filters them by verdict', async () => {
    await open(hooksOnlyDatabase(3_600_000, 30)); // 34 sessions: two pages of 25
    const ids = async () =>
      page.locator('#sessions tbody tr.session td:nth-child(2) .session-id').allTextContents();
    const first = await ids();
    expect(first).toHaveLength(25);
    expect(first[0]).toBe(HOOK_SESSIONS.stopped);
    expect(await page.locator('#sessions-prev').isDisabled()).toBe(true);
    expect(await page.locator('#sessions-pager').isVisible()).toBe(true);
    await page.click('#sessions-next');
    await page.waitForFunction(() => document.getElementById('sessions-page-info')?.textContent === 'page 2');
    const second = await ids();
    expect(second).toHaveLength(9);
    expect(new Set([...first, ...second]).size).toBe(34);
    expect(await page.locator('#sessions-next').isDisabled()).toBe(true);
    await page.click('#sessions-prev');
    await page.waitForFunction(() => document.getElementById('sessions-page-info')?.textContent === 'page 1');
    expect(await ids()).toEqual(first);
    await page.selectOption('#verdict-filter', 'nudged');
    await page.waitForFunction(() => document.querySelectorAll('#sessions tbody tr.session').length === 1);
    expect(await cells(0)).toContain('nudged');
    await page.selectOption('#verdict-filter', 'running');
    await page.waitForFunction(() => document.querySelectorAll('#sessions tbody tr.session').length === 0);
    expect(await page.locator('#sessions-empty').isVisible()).toBe(false); // the filter, not an empty store
    expect(problems).toEqual([]);
  });

  it('plots every kind of entry stored, on an axis of minutes around the one minute they fall in', async () => {
    await open(hooksOnlyDatabase());
    await page.waitForFunction(() => document.querySelector('#chart canvas') !== null);
    const chart = await page.locator('#chart').evaluate((node: HTMLElement) => ({ ...node.dataset }));
    expect(chart.series).toBe('nudge,stop,spend_warning,spend_stop');
    expect(chart.bucket).toBe('60');
    const span = Number(chart.to) - Number(chart.from);
    expect(span).toBeGreaterThanOrEqual(10 * 60_000);
    expect(span).toBeLessThanOrEqual(15 * 60_000);
    const legend = await page.locator('.u-legend .u-label').allTextContents();
    expect(legend).toEqual(['Time', 'nudge', 'stop', 'spend warning', 'spend stop']);
    expect(problems).toEqual([]);
  });

  it('lists the nudges, stops and spend entries in the entries panel with their tool call, not attempts', async () => {
    await open(hooksOnlyDatabase());
    const items = await page.locator('#recoveries summary').allTextContents();
    expect(items).toHaveLength(6);
    expect(items[0]).toMatch(/^stop claude session a1b2c3d4-stopped same error · call 4 · /);
    expect(items.join('\n')).not.toContain('attempts');
    expect(problems).toEqual([]);
  });

  it('shows a live stop without a reload: the session, the header and the chart', async () => {
    const db = hooksOnlyDatabase(0);
    await open(db);
    expect(await text('#verdict-running')).toBe('2'); // active within 10 minutes and not stopped
    db.database.stateMachine.addContextEntry({
      entryType: 'decision',
      topic: 'loop_stop',
      content: 'Stopped (repeated_action)',
      relatedTasks: [`codex:${HOOK_SESSIONS.nudged}`],
      metadata: { loopType: 'repeated_action', toolCall: 8, runId: HOOK_SESSIONS.nudged },
    });
    await page.waitForFunction(() => document.getElementById('verdict-stopped')?.textContent === '2');
    expect(await text('#verdict-running')).toBe('1');
    const row = page.locator('#sessions tbody tr.session', { hasText: HOOK_SESSIONS.nudged });
    await row.locator('td', { hasText: 'repeated call at call 8' }).waitFor();
    await page.waitForFunction(
      () => document.getElementById('chart')?.dataset.series === 'nudge,stop,spend_warning,spend_stop',
    );
    expect(await page.locator('#recoveries li').count()).toBe(7);
    expect(problems).toEqual([]);
  });

  it("says what the project's configuration exempts, and from where, in status's words (trust52)", async () => {
    const words =
      'settings of this project (/repo/loopguard.config.yaml, which git tracks: it came with the repository): commands matching "^(?:npm|make) " are exempt: loopguard judges none of their calls; stopAfter 1000 (default 1)';
    const db = hooksOnlyDatabase();
    await open(db, undefined, () => words);
    expect(await text('#hooks-configured')).toBe(`hooks: ${words}`);
    expect(await page.locator('#hooks-configured').isVisible()).toBe(true);
    expect(await page.locator('#hooks-off').isVisible()).toBe(false);
    expect(problems).toEqual([]);
  });

  it("says the project's prices below the pricing library in status's words (trust54)", async () => {
    const words =
      'prices in this project below the pricing library\'s: "claude-sonnet-4-5" input $0.00 (the library: $3.00) a million tokens (from /repo/loopguard.config.yaml): every budget in dollars counts these replies at them';
    await open(hooksOnlyDatabase(), undefined, undefined, () => words);
    expect(await text('#prices-below')).toBe(`spend: ${words}`);
    expect(await page.locator('#prices-below').isVisible()).toBe(true);
    expect(await page.locator('#hooks-configured').isVisible()).toBe(false);
    expect(problems).toEqual([]);
  });

  it("says the project's hooks are off in status's words, from the next refresh of the status on", async () => {
    const words =
      'off in this project (hook.enabled: false in loopguard.config.yaml): loopguard guards no session here';
    let off: string | undefined = words;
    await page.clock.install(); // the page's ten-second refresh, run at once below
    const db = hooksOnlyDatabase();
    await open(db, () => off);
    expect(await text('#hooks-off')).toBe(`hooks: ${words}`);
    expect(await page.locator('#hooks-off').isVisible()).toBe(true);
    off = undefined; // the user switched them back on
    db.clock.advance(1_000); // the server's cached answer expires
    await page.clock.runFor(10_000);
    await page.locator('#hooks-off').waitFor({ state: 'hidden' });
    off = words;
    db.clock.advance(1_000);
    await page.reload();
    await page.locator('#hooks-off').waitFor({ state: 'visible' });
    expect(await text('#verdict-stopped')).toBe('1'); // the sessions from before are still shown
    expect(problems).toEqual([]);
  });

  it('says nothing of hooks where the server is not told they are off', async () => {
    await open(hooksOnlyDatabase());
    expect(await page.locator('#hooks-off').isVisible()).toBe(false);
    expect(problems).toEqual([]);
  });

  it('shows hostile session ids and entry texts as text: nothing executes', async () => {
    const db = hooksOnlyDatabase();
    const hostile = '<img src=x onerror=alert(1)>';
    db.database.stateMachine.addContextEntry({
      entryType: 'decision',
      topic: 'loop_stop',
      content: '</script><script>alert(2)</script>',
      relatedTasks: ['T1'],
      metadata: { adapter: '<svg onload=alert(3)>', runId: hostile, loopType: '"><b>x</b>', toolCall: 2 },
    });
    await open(db);
    const row = page.locator('#sessions tbody tr.session').first();
    expect(await row.locator('td').first().textContent()).toBe('<svg onload=alert(3)>');
    await row.click();
    await page.locator('#sessions tr.session-detail .session-entries summary').first().click();
    expect(await page.locator('#sessions tr.session-detail pre').first().textContent()).toBe(
      '</script><script>alert(2)</script>',
    );
    expect(await page.evaluate(() => document.querySelectorAll('img, svg, b, main script').length)).toBe(0);
    expect(problems).toEqual([]);
  });
});

// sessions60: a `loopguard run` whose stream watcher stopped an iteration, the next one completing
// it: its call counts that iteration's agent session, and the page says which, as `status` does
describe("the dashboard in Chromium on a loopguard run's stopped iteration", () => {
  it('names the iteration in the sentence and in each entry, and says the run completed', async () => {
    const clock = new ManualClock(Date.now() - 3_600_000);
    const database = openLoopGuardDatabase(':memory:', { clock });
    const runs = new SqliteRunStore({ db: database.db, clock });
    runs.createRun({ id: 'r1', command: ['claude', '-p'], options: {}, cwd: '/repo' });
    for (const [topic, toolCall] of [
      ['loop_nudge', 3],
      ['loop_stop', 4],
    ] as const)
      database.stateMachine.addContextEntry({
        entryType: topic === 'loop_stop' ? 'decision' : 'learning',
        topic,
        content: topic === 'loop_stop' ? 'Stopped (same_error): …' : 'Loop detected (same_error): …',
        relatedTasks: ['r1'],
        metadata: { runId: 'r1', iteration: 2, loopType: 'same_error', toolCall },
      });
    runs.updateRun('r1', { status: 'completed' });
    await open({ reader: new SqliteStatusReader(database), clock, cleanup: () => database.close() });
    await page.locator('#sessions tbody tr.session').first().click();
    const detail = page.locator('#sessions tr.session-detail');
    await detail.locator('.session-entries details').nth(1).waitFor();
    expect(await detail.locator('.session-summary').textContent()).toBe(
      'stopped by loopguard at call 4 of iteration 2 (same error), then the run completed, 1 nudge',
    );
    const summaries = await detail.locator('.session-entries summary').allTextContents();
    expect(summaries.map((summary) => /same error · (call [^·]*) ·/.exec(summary)?.[1])).toEqual([
      'call 3 of iteration 2',
      'call 4 of iteration 2',
    ]);
    // sess68: the message the agent got, quoted, says its kind in words, as status --session does
    expect(await detail.locator('.session-entries pre').first().textContent()).toBe(
      'Loop detected (same error): …',
    );
  });
});

// qa64: a run its iteration limit stopped has no entry: its detail said "loopguard did not step in"
// under "stopped by loopguard (run reached its iteration limit of 1)"
describe('the dashboard in Chromium on a loopguard run stopped by its limit', () => {
  it("says why there is no entry, never that loopguard did not step in; a clean run's still says that", async () => {
    const clock = new ManualClock(Date.now() - 3_600_000);
    const database = openLoopGuardDatabase(':memory:', { clock });
    const runs = new SqliteRunStore({ db: database.db, clock });
    runs.createRun({ id: 'r1', command: ['claude', '-p'], options: {}, cwd: '/repo' });
    runs.updateRun('r1', { status: 'completed' });
    clock.advance(1000);
    runs.createRun({ id: 'r2', command: ['claude', '-p'], options: {}, cwd: '/repo' });
    runs.updateRun('r2', { status: 'budget_spent', reason: 'Iteration 2 exceeds maximum of 1.' });
    await open({ reader: new SqliteStatusReader(database), clock, cleanup: () => database.close() });
    const detailOf = async (row: number) => {
      await page.locator('#sessions tbody tr.session').nth(row).click();
      const entries = page.locator('#sessions tr.session-detail .session-entries').nth(0);
      await entries.locator('li:not(:has-text("loading"))').first().waitFor();
      const text = await entries.textContent();
      await page.locator('#sessions tbody tr.session').nth(row).click();
      return text;
    };
    expect(await detailOf(0)).toBe(
      "No nudge, stop or spend entry: the run's breaker, guards or limits ended it, as the sentence above says.",
    );
    expect(await detailOf(1)).toBe('No nudge, stop or spend entry: loopguard did not step in.');
  });
});

describe('the dashboard in Chromium on an empty database', () => {
  it('says there are no sessions and no entries yet, with zero counts and no chart', async () => {
    const db = hooksOnlyDatabase();
    db.database.db.exec('DELETE FROM hook_sessions; DELETE FROM context_entries; DELETE FROM spend_ledgers');
    await open(db);
    expect(await text('#session-total')).toBe('0');
    expect(await text('#verdict-stopped')).toBe('0');
    expect(await page.locator('#spent-box').isVisible()).toBe(false);
    expect(await page.locator('#sessions-empty').isVisible()).toBe(true);
    expect(await page.locator('#sessions').isVisible()).toBe(false);
    expect(await page.locator('#sessions-pager').isVisible()).toBe(false);
    expect(await page.locator('#recoveries-empty').isVisible()).toBe(true);
    expect(await page.locator('#chart-empty').isVisible()).toBe(true);
    expect(await page.locator('#chart canvas').count()).toBe(0);
    expect(await page.locator('#tasks-section').isVisible()).toBe(false);
    expect(problems).toEqual([]);
  });
});

const MINUTE = 60_000;
const DAY = 86_400_000;

/** Entries of four kinds (a framework run's nudge and stop, a spend warning, a task recovery) spread evenly over `span` ms. */
function entriesOver(span: number): ServedStore {
  const clock = new ManualClock(Date.UTC(2026, 2, 1, 9, 0, 0));
  const database = openLoopGuardDatabase(':memory:', { clock });
  const topics = ['loop_nudge', 'spend_warning', 'loop_recovery', 'loop_stop'] as const;
  for (const [i, topic] of topics.entries()) {
    database.stateMachine.addContextEntry({
      entryType: 'learning',
      topic,
      content: topic,
      relatedTasks: ['T1'],
      metadata: { adapter: 'langgraph', runId: 'run-1', loopType: 'cycle' },
    });
    if (i < topics.length - 1) clock.advance(span / (topics.length - 1));
  }
  return { reader: new SqliteStatusReader(database), clock, cleanup: () => database.close() };
}

describe("the chart's time axis in Chromium", () => {
  it.each([
    ['40 seconds', 40_000, 60],
    ['3 hours', 180 * MINUTE, 300],
    ['3 days', 3 * DAY, 21_600],
    ['4 months', 120 * DAY, 7 * 86_400],
  ])('spans entries over %s with buckets it can show', async (_name, span, bucket) => {
    const db = entriesOver(span);
    const last = db.clock.now();
    await open(db);
    await page.waitForFunction(() => document.querySelector('#chart canvas') !== null);
    const chart = await page.locator('#chart').evaluate((node: HTMLElement) => ({ ...node.dataset }));
    expect(chart.series).toBe('nudge,stop,spend_warning,force_next');
    expect(Number(chart.bucket)).toBe(bucket);
    const [from, to] = [Number(chart.from), Number(chart.to)];
    expect(from).toBeLessThanOrEqual(last - span);
    expect(to).toBeGreaterThan(last);
    const buckets = (to - from) / (bucket * 1000);
    expect(buckets).toBeGreaterThanOrEqual(10);
    expect(buckets).toBeLessThanOrEqual(64);
    expect(await page.locator('.u-legend .u-label').allTextContents()).toEqual([
      'Time',
      'nudge',
      'stop',
      'spend warning',
      'force next',
    ]);
    expect(problems).toEqual([]);
  });

  it.each([
    ['Asia/Kolkata', 'days', 20 * DAY, 86_400],
    ['America/Los_Angeles', 'days', 20 * DAY, 86_400],
    ['Asia/Kolkata', 'hours', 30 * 3_600_000, 3_600],
  ])(
    "counts in the viewer's time zone (%s): its %s start at its own midnight and hour, as the axis and the sessions' times read (qa47)",
    async (timezoneId, _unit, span, bucket) => {
      const cdp = await page.context().newCDPSession(page);
      await cdp.send('Emulation.setTimezoneOverride', { timezoneId });
      await open(entriesOver(span));
      await page.waitForFunction(() => document.querySelector('#chart canvas') !== null);
      const chart = await page.locator('#chart').evaluate((node: HTMLElement) => ({ ...node.dataset }));
      expect(Number(chart.bucket)).toBe(bucket);
      const clock = (ms: number) =>
        new Date(ms).toLocaleTimeString('en-GB', { timeZone: timezoneId, hour12: false });
      const from = Number(chart.from);
      expect(clock(from)).toBe(bucket === 86_400 ? '00:00:00' : `${clock(from).slice(0, 2)}:00:00`);
      expect(problems).toEqual([]);
    },
  );
});
