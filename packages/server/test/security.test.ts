import { request } from 'node:http';
import { connect } from 'node:net';
import { ConfigurationError } from '@loopguard/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY, type RunningStatusServer, startStatusServer } from '../src/index.js';
import { type TestStore, useStores } from './stores.js';

// Routes, authentication and limits do not depend on the storage: tested on SQLite.
const openStore = useStores(['sqlite']);
let ctx: TestStore;
let server: RunningStatusServer;

async function start(extra: Partial<Parameters<typeof startStatusServer>[0]> = {}): Promise<string> {
  server = await startStatusServer({ reader: ctx.reader, port: 0, clock: ctx.clock, ...extra });
  return server.url;
}

// biome-ignore lint/suspicious/noExplicitAny: JSON bodies of many shapes, checked by the assertions
async function getJson(path: string, init: RequestInit = {}): Promise<{ status: number; body: any }> {
  const response = await fetch(new URL(path, server.url), init);
  return { status: response.status, body: await response.json() };
}

/** A raw request, for what fetch cannot send (a Host header, huge headers). */
function raw(path: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, server.url), { headers }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

/** Sends `text` as is on a new connection and returns the status line and body of the answer. */
function rawRequest(text: string): Promise<{ statusLine: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(server.port, '127.0.0.1', () => socket.end(text));
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      answer += chunk;
    });
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', body = ''] = answer.split('\r\n\r\n');
      resolve({ statusLine: head.split('\r\n')[0] ?? '', body });
    });
  });
}

beforeEach(async () => {
  ctx = await openStore('sqlite');
});
afterEach(async () => {
  await server?.close();
  await ctx.cleanup();
});

describe('bad requests before authentication', () => {
  it('answers a request target that is not a URL with 400, not 500', async () => {
    await start();
    const answer = await rawRequest(
      'GET http://[::1 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n',
    );
    expect(answer.statusLine).toBe('HTTP/1.1 400 Bad Request');
    expect(JSON.parse(answer.body).error).toContain('the request target is not a valid URL');
  });

  it('answers a request target that is not a URL with 400 on a token server too', async () => {
    await start({ token: 'a-very-long-secret-token' });
    const answer = await rawRequest(
      'GET http://[::1 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n',
    );
    expect(answer.statusLine).toBe('HTTP/1.1 400 Bad Request');
  });

  it('answers a malformed loopguard_token cookie on a token server with 401, not 500', async () => {
    await start({ token: 'a-very-long-secret-token' });
    for (const cookie of ['loopguard_token=%E0%A4%A', 'loopguard_token=%', 'a=1; loopguard_token=%zz']) {
      const response = await fetch(new URL('/status', server.url), { headers: { Cookie: cookie } });
      expect(response.status, cookie).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer realm="loopguard"');
    }
  });

  it('still lets a good cookie in after a malformed one is refused', async () => {
    const token = 'a-very-long-secret-token';
    await start({ token });
    const bad = await fetch(new URL('/status', server.url), { headers: { Cookie: 'loopguard_token=%E0' } });
    expect(bad.status).toBe(401);
    const entry = await fetch(new URL(`/?token=${token}`, server.url), { redirect: 'manual' });
    const good = await getJson('/status', {
      headers: { Cookie: (entry.headers.get('set-cookie') ?? '').split(';')[0] ?? '' },
    });
    expect(good.status).toBe(200);
  });

  it("keeps the dashboard in for 12 hours after its last request, not for the server's life (trust70)", async () => {
    const token = 'a-very-long-secret-token';
    await start({ token });
    const entry = await fetch(new URL(`/?token=${token}`, server.url), { redirect: 'manual' });
    const set = entry.headers.get('set-cookie') ?? '';
    expect(set).toContain('Max-Age=43200');
    const first = set.split(';')[0] ?? '';
    // the cookie is no copy of the token: a cookie read from the browser's store is no bearer token
    expect(first).not.toContain(token);
    expect(first).not.toContain(encodeURIComponent(token));
    // used within 12 hours it is renewed: another 12 hours from this request
    ctx.clock.advance(11 * 3600_000);
    const used = await fetch(new URL('/status', server.url), { headers: { Cookie: first } });
    expect(used.status).toBe(200);
    const renewed = (used.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    expect(renewed).toMatch(/^loopguard_token=./);
    expect(used.headers.get('set-cookie')).toContain('Max-Age=43200');
    ctx.clock.advance(11 * 3600_000);
    // 22 hours after the first: the first cookie has expired, the renewed one has not
    expect((await fetch(new URL('/status', server.url), { headers: { Cookie: first } })).status).toBe(401);
    expect((await fetch(new URL('/status', server.url), { headers: { Cookie: renewed } })).status).toBe(200);
    ctx.clock.advance(12 * 3600_000 + 1);
    expect((await fetch(new URL('/status', server.url), { headers: { Cookie: renewed } })).status).toBe(401);
  });

  it('takes the token itself as a cookie no longer (trust70: it never expired)', async () => {
    const token = 'a-very-long-secret-token';
    await start({ token });
    const response = await fetch(new URL('/status', server.url), {
      headers: { Cookie: `loopguard_token=${encodeURIComponent(token)}` },
    });
    expect(response.status).toBe(401);
  });
});

describe('routes, security and limits', () => {
  it('answers /healthz and serves the dashboard with a CSP without unsafe-inline', async () => {
    await start();
    expect((await getJson('/healthz')).body).toEqual({ ok: true });
    const page = await fetch(server.url);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toBe(CONTENT_SECURITY_POLICY);
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).toContain("script-src 'self'");
    const html = await page.text();
    expect(html).not.toMatch(/<script>|<style>|\sstyle=|\son\w+=/);
    expect((await fetch(new URL('/vendor/uPlot.iife.min.js', server.url))).status).toBe(200);
  });

  it('answers unknown routes with 404 and other methods with 405', async () => {
    await start();
    const missing = await getJson('/nope');
    expect(missing).toEqual({ status: 404, body: { error: 'no route /nope' } });
    const post = await fetch(new URL('/status', server.url), { method: 'POST', body: 'x' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });

  it('answers a body over maxBodyBytes with 413', async () => {
    await start({ maxBodyBytes: 100 });
    const declared = await fetch(new URL('/status', server.url), { method: 'POST', body: 'x'.repeat(101) });
    expect(declared.status).toBe(413);
    const chunked = await fetch(new URL('/status', server.url), {
      method: 'POST',
      body: new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode('x'.repeat(150)));
          controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(413);
  });

  it('answers oversized headers with 431', async () => {
    await start({ maxHeaderBytes: 1024 });
    expect(await raw('/status', { 'X-Big': 'y'.repeat(4096) })).toBe(431);
  });

  it('requires the bearer token on every route when one is set', async () => {
    const token = 'a-very-long-secret-token';
    await start({ token });
    for (const path of [
      '/',
      '/status',
      '/sessions',
      '/sessions/entries?agent=claude&sessionId=s1',
      '/recoveries',
      '/metrics',
      '/events',
      '/healthz',
    ]) {
      const response = await fetch(new URL(path, server.url));
      expect(response.status, path).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer realm="loopguard"');
    }
    const wrong = await getJson('/status', { headers: { Authorization: 'Bearer wrong' } });
    expect(wrong.status).toBe(401);
    const right = await getJson('/status', { headers: { Authorization: `Bearer ${token}` } });
    expect(right.status).toBe(200);
    const sessions = await getJson('/sessions', { headers: { Authorization: `Bearer ${token}` } });
    expect(sessions.status).toBe(200);
  });

  it('refuses an empty token, which an empty cookie or ?token= would match (trust41)', async () => {
    // `LOOPGUARD_TOKEN= loopguard serve` (a variable set from an unset one): on 127.0.0.1 another
    // local user sent `Cookie: loopguard_token=` and read every session's commands and results
    await expect(start({ token: '' })).rejects.toThrow(ConfigurationError);
    await expect(start({ token: '' })).rejects.toThrow('token must not be empty');
  });

  it('tells a browser without the token (or with the token of an earlier run) how to get in', async () => {
    await start({ token: 'a-very-long-secret-token' });
    for (const headers of [{}, { Cookie: 'loopguard_token=the-token-of-the-last-run' }]) {
      const response = await fetch(new URL('/', server.url), { headers });
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual({
        error:
          'this dashboard needs its token: open the address `loopguard serve` printed (…/?token=…; a new token each time it starts), or send Authorization: Bearer <token>',
      });
    }
  });

  it('lets the dashboard in once with ?token= and keeps it in an HttpOnly cookie', async () => {
    const token = 'a-very-long-secret-token';
    await start({ token });
    const entry = await fetch(new URL(`/?token=${token}`, server.url), { redirect: 'manual' });
    expect(entry.status).toBe(303);
    expect(entry.headers.get('location')).toMatch(/^\/[0-9a-f]{32}\/$/); // see the test below
    const cookie = entry.headers.get('set-cookie') ?? '';
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Strict');
    const withCookie = await getJson('/status', { headers: { Cookie: cookie.split(';')[0] ?? '' } });
    expect(withCookie.status).toBe(200);
    const wrongQuery = await fetch(new URL('/?token=wrong', server.url), { redirect: 'manual' });
    expect(wrongQuery.status).toBe(401);
  });

  it('keeps the cookie to a folder only the token names: a browser sends it to every port of 127.0.0.1 (trust41)', async () => {
    // RFC 6265 §8.5: cookies do not isolate ports. With `Path=/` the victim's browser handed the
    // token to another local user's server on 127.0.0.1 (any port, any page) at the first visit.
    const token = 'a-very-long-secret-token';
    await start({ token });
    const entry = await fetch(new URL(`/?token=${token}`, server.url), { redirect: 'manual' });
    expect(entry.status).toBe(303);
    const folder = entry.headers.get('location') ?? '';
    expect(folder).toMatch(/^\/[0-9a-f]{32}\/$/);
    expect(folder).not.toContain(token);
    const cookie = entry.headers.get('set-cookie') ?? '';
    const path = /;\s*Path=([^;]*)/.exec(cookie)?.[1];
    expect(path).toBe(folder); // sent under the folder only, never to `/` of another port
    const sent = { headers: { Cookie: cookie.split(';')[0] ?? '' } };
    // the dashboard and what it reads, under the folder with the cookie
    const page = await fetch(new URL(folder, server.url), sent);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('dashboard.js');
    for (const route of ['status', 'sessions', 'recoveries?limit=200', 'dashboard.js'])
      expect((await fetch(new URL(`${folder}${route}`, server.url), sent)).status, route).toBe(200);
    // the folder without the token is nothing
    expect((await fetch(new URL(`${folder}status`, server.url))).status).toBe(401);
  });

  it('without a token, refuses a Host that is not loopback (DNS rebinding) with 403', async () => {
    await start();
    expect(await raw('/status', { Host: 'evil.example:80' })).toBe(403);
    expect(await raw('/status', { Host: `localhost:${server.port}` })).toBe(200);
  });

  it('refuses to listen beyond loopback without a token, and reports a port in use', async () => {
    await expect(startStatusServer({ reader: ctx.reader, host: '0.0.0.0', port: 0 })).rejects.toThrow(
      ConfigurationError,
    );
    await expect(
      startStatusServer({ reader: ctx.reader, host: '0.0.0.0', port: 0, token: 'short' }),
    ).rejects.toThrow('a token of at least 16 characters is required');
    await start();
    await expect(startStatusServer({ reader: ctx.reader, port: server.port })).rejects.toMatchObject({
      code: 'EADDRINUSE',
    });
  });
});

describe('the answer cache', () => {
  it('shares one store read between requests that miss together', async () => {
    await ctx.upsertTask({ id: 'T1', status: 'in_progress' });
    let pages = 0;
    const reader = ctx.reader;
    const counting = Object.create(reader) as typeof reader;
    counting.taskPage = async (query) => {
      pages += 1;
      await new Promise((done) => setTimeout(done, 50)); // a slow store
      return reader.taskPage(query);
    };
    server = await startStatusServer({ reader: counting, port: 0, clock: ctx.clock });
    const bodies = await Promise.all(
      Array.from({ length: 8 }, async () => (await fetch(new URL('/status', server.url))).json()),
    );
    expect(pages).toBe(1);
    expect(new Set(bodies.map((body) => JSON.stringify(body))).size).toBe(1);
  });
});
