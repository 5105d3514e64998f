/// <reference lib="dom" />
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../server/test/browser.js';
import { EXIT_CODES } from '../src/exitCodes.js';
import { runCli } from '../src/main.js';
import type { ScanReport } from '../src/scan/scanReport.js';
import { SCAN_FIXTURES } from './agentTranscripts.js';
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

async function writeReport(args: string[]): Promise<{ file: string; report: ScanReport }> {
  const dir = mkdtempSync(join(tmpdir(), 'loopguard-scan-html-'));
  const file = join(dir, 'report.html');
  const io = bufferedIo({ cwd: dir });
  expect(await runCli(['scan', ...args, '--html', file, '--json'], io), io.err()).toBe(EXIT_CODES.ok);
  return { file, report: JSON.parse(io.out()) as ScanReport };
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
    expect(cards.join('\n')).toContain(`$${report.totals.wastedCost?.toFixed(2)}\ncost after the stop`);
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
    expect(await first.locator('pre').textContent()).toMatch(/^Stopped \(\w+\): /);
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
});
