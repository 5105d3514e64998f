/// <reference lib="dom" />
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../server/test/browser.js';
import { runCli } from '../src/main.js';
import { formatMoney } from '../src/scan/money.js';
import type { ScanReport } from '../src/scan/scanReport.js';
import { EXIT_CODES } from '../src/terminal/exitCodes.js';
import { SCAN_FIXTURES } from './agentTranscripts.js';
import { claudeNudge, claudeSession, claudeStop } from './guardTranscripts.js';
import { bufferedIo } from './helpers.js';

// The page `loopguard scan --html` writes, opened from disk in Debian's Chromium (as the dashboard
// is tested): it must draw by itself, with nothing fetched.
let browser: Awaited<ReturnType<typeof launchChromium>>;
beforeAll(async () => {
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
});

async function writeReport(args: string[]): Promise<{ file: string; report: ScanReport; err: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'loopguard-scan-html-'));
  const file = join(dir, 'report.html');
  const io = bufferedIo({ cwd: dir });
  expect(await runCli(['scan', ...args, '--html', file, '--json'], io), io.err()).toBe(EXIT_CODES.ok);
  return { file, report: JSON.parse(io.out()) as ScanReport, err: io.err() };
}

describe('loopguard scan --html in Chromium', () => {
  it('draws the totals, the waste over time and per project, and the evidence of each loop, offline', async () => {
    const { file, report } = await writeReport([fileURLToPath(SCAN_FIXTURES), '--price', '3']);
    const page = await browser.context.newPage();
    const problems: string[] = [];
    const requests: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('request', (request) => requests.push(request.url()));
    await page.goto(pathToFileURL(file).href);
    await page.waitForSelector('body[data-ready="true"]');
    expect(problems).toEqual([]);
    expect(requests).toEqual([pathToFileURL(file).href]);

    const cards = await page.locator('#totals .card').allInnerTexts();
    expect(cards.join('\n')).toContain(`${report.totals.wastedToolCalls}\ntool calls after the stop`);
    expect(cards.join('\n')).toContain(`${formatMoney(report.totals.wastedCost ?? 0)}\ncost after the stop`);
    // uPlot draws each chart on a canvas with its legend
    expect(await page.locator('#chart-time canvas').count()).toBe(1);
    expect(await page.locator('#chart-projects canvas').count()).toBe(1);
    expect(await page.locator('#chart-time .u-legend').textContent()).toContain('tool calls after the stop');
    const ink = await page
      .locator('#chart-projects canvas')
      .evaluate((canvas: HTMLCanvasElement) =>
        Array.from(canvas.getContext('2d')?.getImageData(0, 0, canvas.width, canvas.height).data ?? []).some(
          (value, i) => i % 4 === 3 && value > 0,
        ),
      );
    expect(ink).toBe(true);

    const loops = report.sessions.flatMap((session) => session.loops);
    const rows = page.locator('#loops tr');
    expect(await rows.count()).toBe(loops.length);
    const first = rows.first();
    expect(await first.textContent()).toContain('missing.txt');
    await first.locator('summary').click();
    // the message as status --session and the dashboard quote it: its kind in words (doors71)
    expect(await first.locator('pre').textContent()).toMatch(/^Stopped \([a-z -]+\): /);
    expect(await first.locator('pre').textContent()).not.toMatch(/^Stopped \(\w+_\w+\)/);
    await page.close();
  });

  it('fits a phone-wide window: the page never scrolls sideways, the loops table scrolls in its own box (qa54)', async () => {
    const { file } = await writeReport([fileURLToPath(SCAN_FIXTURES), '--price', '3']);
    const page = await browser.context.newPage();
    await page.setViewportSize({ width: 420, height: 900 });
    await page.goto(pathToFileURL(file).href);
    await page.waitForSelector('body[data-ready="true"]');
    const widths = await page.evaluate(() => ({
      page: document.documentElement.scrollWidth,
      window: window.innerWidth,
      table: document.getElementById('loops')?.closest('table')?.scrollWidth,
      box: document.getElementById('loops')?.closest('table')?.parentElement?.clientWidth,
    }));
    expect(widths.page, JSON.stringify(widths)).toBe(widths.window);
    expect(widths.table).toBeGreaterThan(widths.box ?? 0);
    // both charts drawn, one above the other
    expect(await page.locator('#charts canvas').count()).toBe(2);
    await page.close();
  });

  it("says where it wrote the page, and shows --budget's line the terminal prints", async () => {
    const args = [fileURLToPath(SCAN_FIXTURES), '--budget', '0.0001'];
    const { file, err } = await writeReport(args);
    expect(err).toContain(`loopguard scan: HTML report: ${file}`);
    const dir = mkdtempSync(join(tmpdir(), 'loopguard-scan-html-'));
    const io = bufferedIo({ cwd: dir });
    expect(await runCli(['scan', ...args, '--html', 'page.html'], io), io.err()).toBe(EXIT_CODES.ok);
    expect(io.out()).toContain(`HTML report: ${join(dir, 'page.html')}`);
    const budget = io
      .out()
      .split('\n')
      .find((line) => line.startsWith('A budget of ') && line.includes(' per session would have stopped'));
    expect(budget).toBeDefined();
    const page = await browser.context.newPage();
    await page.goto(pathToFileURL(file).href);
    await page.waitForSelector('body[data-ready="true"]');
    expect(await page.locator('#cost-lines').textContent()).toContain(budget as string);
    await page.close();
  });

  it("dates each loop on the day the terminal and --since give it, in the scan's time zone (qa47)", async () => {
    // the fixtures start at 23:58 UTC on 25 November: the 26th in Tokyo
    const fixtures = fileURLToPath(SCAN_FIXTURES);
    const { file } = await writeReport([fixtures, '--timezone', 'Asia/Tokyo']);
    const page = await browser.context.newPage();
    await page.goto(pathToFileURL(file).href);
    await page.waitForSelector('body[data-ready="true"]');
    const dates = await page.locator('#loops tr td:nth-child(2)').allTextContents();
    expect(dates.length).toBeGreaterThan(0);
    expect(new Set(dates)).toEqual(new Set(['2026-11-26']));
    await page.close();
  });

  it('shows a session loopguard stopped as stopped by loopguard at its tool call, not "nudge only"', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'loopguard-scan-html-guarded-'));
    const lines = claudeSession(4, { 3: [claudeNudge(3)], 4: [claudeStop(4)] }, 4);
    writeFileSync(join(dir, 'guarded.jsonl'), `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
    const { file } = await writeReport([dir]);
    const page = await browser.context.newPage();
    await page.goto(pathToFileURL(file).href);
    await page.waitForSelector('body[data-ready="true"]');
    const cells = await page.locator('#loops tr td').allTextContents();
    expect(cells).toContain('3 / 4 (by loopguard) / 4');
    expect(cells).toContain('stopped by loopguard');
    expect(cells).not.toContain('nudge only');
    expect(await page.locator('#totals').textContent()).toContain('1sessions loopguard stopped');
    await page.close();
  });

  it('qa66: marks a stop by loopguard that did not end the session (Codex goes on), as the terminal does', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'loopguard-scan-html-goes-on-'));
    const lines = claudeSession(4, { 3: [claudeNudge(3)], 4: [claudeStop(4, 'PostToolUseFailure')] });
    // the model goes on after the stop with another command, which works: the loop "got out"
    const base = {
      sessionId: 's1',
      cwd: '/tmp/app',
      isSidechain: false,
      timestamp: '2026-11-29T08:00:00.000Z',
    };
    lines.push(
      {
        ...base,
        type: 'assistant',
        message: {
          id: 'msg_5',
          role: 'assistant',
          model: 'claude-sonnet-4-5',
          content: [{ type: 'tool_use', id: 'toolu_5', name: 'Bash', input: { command: 'ls' } }],
          usage: { input_tokens: 100, output_tokens: 12 },
        },
      },
      {
        ...base,
        type: 'user',
        message: {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 'toolu_5', content: 'README.md' }],
        },
      },
    );
    writeFileSync(join(dir, 'goes-on.jsonl'), `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
    const { file, report } = await writeReport([dir]);
    expect(report.sessions[0]?.loops[0]).toMatchObject({
      stopCall: 4,
      ended: 'got_out',
      loopguard: 'stopped',
    });
    const terminal = bufferedIo({ cwd: dir, env: { LOOPGUARD_SCAN_CACHE: 'off' } });
    await runCli(['scan', dir], terminal);
    expect(terminal.out()).toContain('call 4 (by loopguard)');
    const page = await browser.context.newPage();
    await page.goto(pathToFileURL(file).href);
    await page.waitForSelector('body[data-ready="true"]');
    const cells = await page.locator('#loops tr td').allTextContents();
    expect(cells).toContain('3 / 4 (by loopguard) / 4');
    // doors67: the kind in words, as the terminal says it; the page's data keeps the code
    expect(report.sessions[0]?.loops[0]?.kind).toBe('same_error');
    expect(cells).toContain('same error');
    expect(cells).not.toContain('same_error');
    await page.close();
  });

  it("names a subagent's session in a `subagent of` column, as the terminal's table does (polish65)", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'loopguard-scan-html-subagent-'));
    // a Claude Code subagent's own file (`<session>/subagents/agent-….jsonl`): its run under session s1
    const subagent = claudeSession(6, {}).map((line) => ({
      ...(line as object),
      isSidechain: true,
      agentId: 'a7f3e21',
    }));
    mkdirSync(join(dir, 's1', 'subagents'), { recursive: true });
    writeFileSync(
      join(dir, 's1', 'subagents', 'agent-a7f3e21.jsonl'),
      `${subagent.map((line) => JSON.stringify(line)).join('\n')}\n`,
    );
    const main = claudeSession(6, {}).map((line) => ({ ...(line as object), sessionId: 's2' }));
    writeFileSync(join(dir, 's2.jsonl'), `${main.map((line) => JSON.stringify(line)).join('\n')}\n`);
    const { file, report } = await writeReport([dir]);
    expect(report.sessions.find((session) => session.sessionId === 'a7f3e21')?.parentSessionId).toBe('s1');
    const page = await browser.context.newPage();
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(pathToFileURL(file).href);
    await page.waitForSelector('body[data-ready="true"]');
    const headers = await page.locator('#loops').locator('xpath=..').locator('thead th').allTextContents();
    expect(headers.at(-1)).toBe('subagent of');
    const rows = await page
      .locator('#loops tr')
      .evaluateAll((trs) =>
        trs.map((tr) => Array.from(tr.querySelectorAll(':scope > td')).map((td) => td.textContent ?? '')),
      );
    expect(rows.map((cells) => [cells.length, cells.at(-1)]).sort()).toEqual([
      [headers.length, ''],
      [headers.length, 's1'],
    ]);
    // looked at while writing this: the column last, the subagent's row naming s1
    await page.screenshot({ path: join(dir, 'page.png'), fullPage: true });
    await page.close();
  });

  it("has no `subagent of` column where no loop is a subagent's", async () => {
    const { file } = await writeReport([fileURLToPath(SCAN_FIXTURES), '--price', '3']);
    const page = await browser.context.newPage();
    await page.goto(pathToFileURL(file).href);
    await page.waitForSelector('body[data-ready="true"]');
    expect(
      await page.locator('#loops').locator('xpath=..').locator('thead th').allTextContents(),
    ).not.toContain('subagent of');
    await page.close();
  });

  it("says the sessions loopguard's spend guard stopped, as the terminal does (qa39)", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'loopguard-scan-html-spend-'));
    const message = 'loopguard: this session reached its budget ($1.60 of $1.00); loopguard stopped it.';
    const lines = claudeSession(2, {
      2: [
        {
          type: 'attachment',
          isSidechain: false,
          attachment: { type: 'hook_stopped_continuation', message, hookName: 'PostToolUse:Bash' },
        },
      ],
    });
    writeFileSync(join(dir, 'spent.jsonl'), `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
    const { file, report } = await writeReport([dir]);
    expect(report.totals.stoppedOnSpendByLoopguard).toBe(1);
    const page = await browser.context.newPage();
    await page.goto(pathToFileURL(file).href);
    await page.waitForSelector('body[data-ready="true"]');
    expect(await page.locator('#totals').textContent()).toContain(
      "1sessions loopguard's spend guard stopped at their budget",
    );
    await page.close();
  });

  it('says so when there is no loop', async () => {
    const { file } = await writeReport([
      join(fileURLToPath(SCAN_FIXTURES), 'claude-2.1.330-progressing.jsonl'),
    ]);
    const page = await browser.context.newPage();
    await page.goto(pathToFileURL(file).href);
    await page.waitForSelector('body[data-ready="true"]');
    expect(await page.locator('#no-loops').isVisible()).toBe(true);
    expect(await page.locator('#charts').isVisible()).toBe(false);
    await page.close();
  });

  /**
   * Copies of the Claude Code looping fixture, one per (day, project): its dates moved to `day` and
   * its working directory to `project`.
   */
  function sessionsOn(days: string[], projects: string[]): string {
    const dir = mkdtempSync(join(tmpdir(), 'loopguard-scan-html-days-'));
    const original = readFileSync(join(fileURLToPath(SCAN_FIXTURES), 'claude-2.1.330-looping.jsonl'), 'utf8');
    const cwd = /"cwd":"([^"]+)"/.exec(original)?.[1] as string;
    for (const day of days) {
      for (const project of projects) {
        const folder = join(dir, project.replaceAll('/', '-'));
        mkdirSync(folder, { recursive: true });
        const text = original.replaceAll('2026-11-25', day).replaceAll(cwd, project);
        writeFileSync(join(folder, `${day}.jsonl`), text);
      }
    }
    return dir;
  }

  const dayNumber = (day: string) => Date.parse(`${day}T00:00:00Z`) / 86_400_000;

  it.each([
    ['one day, one project', ['2026-11-25'], ['/home/dev/shop']],
    ['many days, one project', ['2026-11-20', '2026-11-22', '2026-11-25'], ['/home/dev/shop']],
    [
      'many days, many projects',
      ['2026-11-01', '2026-11-25'],
      ['/home/dev/shop', '/home/dev/api', '/srv/infra'],
    ],
  ])(
    'draws %s on an axis of whole days with a day either side, and costs that add up',
    async (_name, days, projects) => {
      const { file } = await writeReport([sessionsOn(days, projects), '--price', '1']);
      const page = await browser.context.newPage();
      await page.goto(pathToFileURL(file).href);
      await page.waitForSelector('body[data-ready="true"]');
      const charts = await page.evaluate(() => {
        const { time, projects } = (
          window as unknown as {
            scanCharts: Record<string, { scales: { x: { min: number; max: number } }; data: number[][] }>;
          }
        ).scanCharts;
        return {
          x: { min: time?.scales.x.min, max: time?.scales.x.max },
          days: time?.data[0],
          projects: projects?.data[0]?.length,
        };
      });
      const first = dayNumber(days[0] as string);
      const last = dayNumber(days[days.length - 1] as string);
      expect(charts.x).toEqual({ min: first - 1, max: last + 1 });
      expect(charts.days).toEqual(days.map(dayNumber));
      expect(charts.projects).toBe(projects.length);
      const total = await page.locator('#totals .card strong').last().textContent();
      expect(total).toMatch(/^\$0\.\d+$/);
      const costs = (await page.locator('#loops td:nth-child(7)').allInnerTexts()).map((text) =>
        text.split(', ').pop(),
      );
      expect(costs).toHaveLength(days.length * projects.length);
      for (const cost of costs) expect(cost).toMatch(/^\$0\.0*[1-9]\d*$/);
      await page.close();
    },
  );
});
