// Takes docs/dashboard.png: runs `loopguard demo --serve` at a watchable pace, opens the dashboard
// in headless Chromium while the demo runs, and screenshots it when the demo's last scenario is done.
// Run: npx tsc -b && node scripts/screenshot-dashboard.mjs
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchScreenshotBrowser } from './lib/screenshotBrowser.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'loopguard-shot-'));
const demo = spawn(
  process.execPath,
  [join(root, 'packages/cli/dist/bin.js'), 'demo', '--serve', '--port', '0', '--pace', '120'],
  { cwd: work },
);
let out = '';
const seen = (pattern) =>
  new Promise((resolve) => {
    const check = () => {
      const match = pattern.exec(out);
      if (match) {
        demo.stdout.off('data', check);
        resolve(match);
      }
    };
    demo.stdout.on('data', (chunk) => {
      out += chunk;
      check();
    });
    check();
  });
const [, url] = await seen(/loopguard dashboard: (http:\S+)/);
const browser = await launchScreenshotBrowser();
const { context } = browser;
const page = await context.newPage();
await page.goto(url);
await seen(/The dashboard stays up/);
await page.waitForTimeout(800);
await page.locator('#recoveries summary').nth(1).click();
// opening the entry scrolls it into view: the shot is of the page's top (header, chart, sessions)
await page.evaluate(() => window.scrollTo(0, 0));
await page.screenshot({ path: join(root, 'docs/dashboard.png') });
await browser.close();
demo.kill('SIGTERM');
rmSync(work, { recursive: true, force: true });
console.log('wrote docs/dashboard.png');
