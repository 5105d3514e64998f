// Takes docs/scan-report.png: writes synthetic Claude Code transcripts of a few projects over two
// weeks (some sessions loop, most do not), runs `loopguard scan --html` over them, and screenshots
// the page in headless Chromium. Run: npx tsc -b && node scripts/screenshot-scan.mjs
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { seededRandom } from './bench/injectLoops.mjs';
import { launchScreenshotBrowser } from './lib/screenshotBrowser.mjs';
import { sessionLines } from './lib/syntheticTranscripts.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'loopguard-scan-shot-'));
const next = seededRandom(7);
const projects = ['/home/dev/api-server', '/home/dev/web-app', '/home/dev/infra', '/home/dev/mobile'];
const loops = ['make watch', 'npm test -- --watch=false', 'terraform plan', 'cargo build'];
const start = Date.parse('2026-11-10T09:00:00Z');
for (let day = 0; day < 14; day++) {
  for (const [p, project] of projects.entries()) {
    const folder = join(work, project.replaceAll('/', '-'));
    mkdirSync(folder, { recursive: true });
    const loopLength = next() < 0.35 ? 4 + Math.floor(next() * 14 * (p + 1)) : 0;
    const { sessionId, lines } = sessionLines({
      cwd: project,
      start: start + day * 86_400_000 + p * 3_600_000,
      calls: 30 + Math.floor(next() * 30),
      loopAt: loopLength > 0 ? 10 : -1,
      loopLength,
      loopCommand: loops[p],
    });
    writeFileSync(join(folder, `${sessionId}.jsonl`), `${lines.join('\n')}\n`);
  }
}
const html = join(work, 'report.html');
execFileSync(
  process.execPath,
  [join(root, 'packages/cli/dist/bin.js'), 'scan', work, '--html', html, '--price', '3'],
  {
    cwd: work,
    stdio: ['ignore', 'inherit', 'inherit'],
  },
);
const browser = await launchScreenshotBrowser();
const page = await browser.context.newPage();
await page.goto(pathToFileURL(html).href);
await page.waitForSelector('body[data-ready="true"]');
await page.locator('#loops summary').first().click();
await page.screenshot({ path: join(root, 'docs/scan-report.png'), fullPage: false });
await browser.close();
rmSync(work, { recursive: true, force: true });
console.log('wrote docs/scan-report.png');
