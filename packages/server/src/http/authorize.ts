import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { HttpError } from './HttpError.js';

/** The cookie the dashboard page keeps the token in after `/?token=…`. */
export const TOKEN_COOKIE = 'loopguard_token';

function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/**
 * How long the dashboard's cookie lets a browser in after its last request, ms (trust70): 12 hours,
 * renewed by each request it is sent with. Before, the cookie was the token itself and lasted as
 * long as the server: a browser left open, or a copy of its cookie store, was in for days.
 */
export const DASHBOARD_COOKIE_MS = 12 * 60 * 60 * 1000;

/** The cookie's value for a visit that lasts until `expiresAt` (epoch ms): that time and its HMAC under the token. */
function cookieValue(token: string, expiresAt: number): string {
  const mac = createHmac('sha256', token)
    .update(`loopguard dashboard cookie\n${expiresAt}`)
    .digest('base64url');
  return `${expiresAt}.${mac}`;
}

/** Whether `value` is a cookie {@link cookieValue} made under `token` that has not expired at `now`. */
function validCookie(value: string, token: string, now: number): boolean {
  const expiresAt = Number(/^(\d{1,16})\./.exec(value)?.[1]);
  if (!(expiresAt > now) || expiresAt > now + DASHBOARD_COOKIE_MS) return false;
  return sameSecret(value, cookieValue(token, expiresAt));
}

/**
 * The `Set-Cookie` header that lets the dashboard's browser in for {@link DASHBOARD_COOKIE_MS} from
 * `now`, sent to the dashboard's folder only.
 */
function dashboardCookie(token: string, now: number): string {
  const value = cookieValue(token, now + DASHBOARD_COOKIE_MS);
  return `${TOKEN_COOKIE}=${value}; HttpOnly; SameSite=Strict; Path=${dashboardFolder(token)}; Max-Age=${DASHBOARD_COOKIE_MS / 1000}`;
}

/** The value of the request's `loopguard_token` cookie; `undefined` when absent or not decodable. */
function cookieToken(req: IncomingMessage): string | undefined {
  const header = req.headers.cookie;
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name !== TOKEN_COOKIE) continue;
    try {
      return decodeURIComponent(value.join('='));
    } catch {
      return undefined; // a malformed escape: no token, so the request is refused with 401
    }
  }
  return undefined;
}

/**
 * The folder the dashboard is served from after `/?token=…`: `/<32 hex digits of a SHA-256 of the
 * token>/`, the only path its cookie is sent to. A browser sends a host's cookies to every port of
 * it (RFC 6265 §8.5): with `Path=/`, another local user's server on 127.0.0.1 got the token at the
 * victim's first visit. Only whoever holds the token can name the folder.
 * @example dashboardFolder('a-very-long-secret-token') // '/3f…/' (32 hex digits)
 */
export function dashboardFolder(token: string): string {
  return `/${createHash('sha256').update(`loopguard dashboard folder\n${token}`).digest('hex').slice(0, 32)}/`;
}

function isLoopbackHost(host: string | undefined): boolean {
  if (host === undefined) return false;
  const name = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : (host.split(':')[0] ?? '');
  return name === 'localhost' || name === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name);
}

/**
 * Checks a request's credentials. Without a token only loopback `Host` names pass (DNS rebinding);
 * with one, the request needs `Authorization: Bearer <token>` or the dashboard's cookie, and
 * `/?token=…` sets the cookie for {@link dashboardFolder} and redirects there (the dashboard's one
 * way in). The cookie lets the browser in for {@link DASHBOARD_COOKIE_MS} after its last request:
 * each request it comes with sets it anew.
 * @param now - the time, epoch ms (the server's clock).
 * @returns `true` to go on; `false` when the response (the redirect) is already sent.
 * @throws HttpError 403 for a foreign `Host` without a token, 401 without the right token.
 */
export function authorize(
  token: string | undefined,
  req: IncomingMessage,
  url: URL,
  res: ServerResponse,
  now: number = Date.now(),
): boolean {
  if (token === undefined) {
    if (!isLoopbackHost(req.headers.host))
      throw new HttpError(403, 'Host must be a loopback name when the server has no token');
    return true;
  }
  const header = req.headers.authorization;
  const bearer = header?.startsWith('Bearer ') ? header.slice(7) : undefined;
  if (bearer !== undefined && sameSecret(bearer, token)) return true;
  const cookie = bearer === undefined ? cookieToken(req) : undefined;
  if (cookie !== undefined && validCookie(cookie, token, now)) {
    res.setHeader('Set-Cookie', dashboardCookie(token, now)); // 12 hours from this request
    return true;
  }
  const query = url.searchParams.get('token');
  if (url.pathname === '/' && query !== null && sameSecret(query, token)) {
    // A cookie sent to the dashboard's folder only, and the token dropped from the address.
    const folder = dashboardFolder(token);
    res.statusCode = 303;
    res.setHeader('Set-Cookie', dashboardCookie(token, now));
    res.setHeader('Location', folder);
    res.end();
    return false;
  }
  res.setHeader('WWW-Authenticate', 'Bearer realm="loopguard"');
  // read in a browser tab too: a bookmark, or the cookie of the server's last run
  throw new HttpError(
    401,
    'this dashboard needs its token: open the address `loopguard serve` printed (…/?token=…; a new token each time it starts), or send Authorization: Bearer <token>',
  );
}
