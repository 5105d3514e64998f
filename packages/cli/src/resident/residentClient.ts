import type { ResidentConfig } from './residentConfig.js';

/**
 * One request to the user's resident process, with the token. Resolves with the response; rejects
 * when nothing listens (`fetch failed`, cause `ECONNREFUSED`) or after `timeoutMs`.
 * @example await residentRequest(config, 'GET', '/health');
 */
export function residentRequest(
  config: ResidentConfig,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
  timeoutMs = 2000,
): Promise<Response> {
  return fetch(`http://127.0.0.1:${config.port}${path}`, {
    method,
    headers: { authorization: `Bearer ${config.token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(timeoutMs),
  });
}

/** The URL Claude Code's `http` hooks post to. */
export function residentHookUrl(config: ResidentConfig): string {
  return `http://127.0.0.1:${config.port}/hook/claude`;
}
