// Headless Chromium for the screenshot scripts: Debian's /usr/bin/chromium through playwright-core,
// a fresh profile, a 1360x860 window. `close()` removes the profile.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from '../../packages/server/node_modules/playwright-core/index.mjs';

/** Launches the browser; returns its context and a `close()` that also removes the profile. */
export async function launchScreenshotBrowser() {
  const profile = mkdtempSync(join(tmpdir(), 'loopguard-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
    ],
    viewport: { width: 1360, height: 860 },
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
