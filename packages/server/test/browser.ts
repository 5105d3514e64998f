import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';

/** Debian's Chromium, installed by `.ci/run` (`apt-get install -y chromium`). */
export const CHROMIUM = '/usr/bin/chromium';

/**
 * Launches headless Chromium with a fresh profile. Fails loudly (never skips) when it is missing.
 * @example const browser = await launchChromium(); … await browser.close();
 */
export async function launchChromium(): Promise<{ context: BrowserContext; close: () => Promise<void> }> {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `${CHROMIUM} is missing: install it with apt-get install -y chromium (.ci/run does this)`,
    );
  const profile = mkdtempSync(join(tmpdir(), 'loopguard-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    viewport: { width: 1280, height: 900 },
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * A new page of `context` that notes what a person would see go wrong: a dialog (dismissed), an
 * uncaught error, an error in the console. A test expects `problems` to stay empty.
 * @example const { page, problems } = await watchedPage(context); … expect(problems).toEqual([]);
 */
export async function watchedPage(context: BrowserContext): Promise<{ page: Page; problems: string[] }> {
  const problems: string[] = [];
  const page = await context.newPage();
  page.on('dialog', (dialog) => {
    problems.push(`dialog: ${dialog.message()}`);
    void dialog.dismiss();
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  return { page, problems };
}
