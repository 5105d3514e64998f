import type { ServerResponse } from 'node:http';
import { InvalidInputError, StorageError } from '@loopguard/core';
import { HttpError } from './HttpError.js';

/** The Content-Security-Policy of every response: no inline script or style, same-origin only. */
export const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** Sets the security headers every response carries. */
export function setSecurityHeaders(res: ServerResponse): void {
  res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
}

/** Answers with a JSON text, never cached by the client. */
export function sendJsonText(res: ServerResponse, status: number, text: string): void {
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

/** Answers with `body` as JSON. */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  sendJsonText(res, status, JSON.stringify(body));
}

/** The HTTP status of an error: its own for an {@link HttpError}, 400 for bad input, 503 for a store out of reach, else 500. */
function statusOf(error: unknown): number {
  if (error instanceof HttpError) return error.status;
  if (error instanceof InvalidInputError) return 400;
  if (error instanceof StorageError && error.code === 'storage_unavailable') return 503;
  return 500;
}

/**
 * Answers a failed request with `{ error }` and the status of the error; a response already
 * under way (an event stream) is cut instead.
 */
export function sendError(res: ServerResponse, error: unknown): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const status = statusOf(error);
  const message = error instanceof Error ? error.message : String(error);
  if (status === 413) res.setHeader('Connection', 'close');
  sendJson(res, status, { error: status === 500 ? `internal error: ${message}` : message });
}
