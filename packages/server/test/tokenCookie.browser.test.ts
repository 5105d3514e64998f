/// <reference lib="dom" />
import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { type RunningStatusServer, startStatusServer } from '../src/index.js';
import { launchChromium, watchedPage } from './browser.js';
import { hooksOnlyDatabase } from './hookSessions.js';

let browser: Awaited<ReturnType<typeof launchChromium>> | undefined;
let server: RunningStatusServer | undefined;
let neighbour: Server | undefined;
let cleanup: (() => void) | undefined;

afterEach(async () => {
  await browser?.close();
  await server?.close();
  await new Promise((done) => (neighbour === undefined ? done(undefined) : neighbour.close(done)));
  cleanup?.();
  browser = server = neighbour = cleanup = undefined;
});

/** Another local user's server on another port of 127.0.0.1: it keeps the cookies it is sent. */
async function neighbourServer(): Promise<{ port: number; cookies: string[] }> {
  const cookies: string[] = [];
  neighbour = createServer((req, res) => {
    cookies.push(req.headers.cookie ?? '');
    res.end('<p>a page</p>');
  });
  await new Promise<void>((done) => neighbour?.listen(0, '127.0.0.1', done));
  return { port: (neighbour.address() as { port: number }).port, cookies };
}

describe('the dashboard token in Chromium, against another local user on 127.0.0.1 (trust41)', () => {
  it('opens the dashboard from the printed address, and never sends its token to another port', async () => {
    const db = hooksOnlyDatabase();
    cleanup = db.cleanup;
    const token = 'a-very-long-secret-token';
    server = await startStatusServer({
      reader: db.reader,
      port: 0,
      clock: db.clock,
      token,
      followIntervalMs: 50,
    });
    browser = await launchChromium();
    const { page, problems } = await watchedPage(browser.context);
    await page.goto(`${server.url}?token=${token}`);
    await page.waitForSelector('body[data-ready="true"]');
    await page.waitForFunction(() => document.getElementById('live')?.textContent === 'connected');
    expect((await page.locator('#session-total').textContent())?.trim()).toBe('4');
    expect(page.url()).not.toContain(token);
    // the victim then opens a page another user serves on 127.0.0.1 (a link, a typed address)
    const other = await neighbourServer();
    await page.goto(`http://127.0.0.1:${other.port}/`);
    await page.goto(`http://127.0.0.1:${other.port}/status`);
    expect(other.cookies.length).toBeGreaterThanOrEqual(2); // and the favicon's
    expect(other.cookies.join('\n')).not.toContain('loopguard_token');
    expect(problems).toEqual([]);
  });
});
