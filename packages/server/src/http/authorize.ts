import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { HttpError } from './HttpError.js';

/** The cookie the dashboard page keeps the token in after `/?token=…`. */
export const TOKEN_COOKIE = 'loopguard_token';

function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** The token in the request's `loopguard_token` cookie; `undefined` when absent or not decodable. */
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
 * with one, the request needs `Authorization: Bearer <token>` or the token cookie, and `/?token=…`
 * sets the cookie for {@link dashboardFolder} and redirects there (the dashboard's one way in).
 * @returns `true` to go on; `false` when the response (the redirect) is already sent.
 * @throws HttpError 403 for a foreign `Host` without a token, 401 without the right token.
 */
export function authorize(
  token: string | undefined,
  req: IncomingMessage,
  url: URL,
  res: ServerResponse,
): boolean {
  if (token === undefined) {
    if (!isLoopbackHost(req.headers.host))
      throw new HttpError(403, 'Host must be a loopback name when the server has no token');
    return true;
  }
  const header = req.headers.authorization;
  const bearer = header?.startsWith('Bearer ') ? header.slice(7) : undefined;
  const given = bearer ?? cookieToken(req);
  if (given !== undefined && sameSecret(given, token)) return true;
  const query = url.searchParams.get('token');
  if (url.pathname === '/' && query !== null && sameSecret(query, token)) {
    // Keep the token in a cookie sent to the dashboard's folder only, and drop it from the address.
    const folder = dashboardFolder(token);
    res.statusCode = 303;
    res.setHeader(
      'Set-Cookie',
      `${TOKEN_COOKIE}=${encodeURIComponent(token)}; HttpOnly; SameSite=Strict; Path=${folder}`,
    );
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
