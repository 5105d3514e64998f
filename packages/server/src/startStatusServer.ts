import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigurationError } from '@loopguard/core';
import { createStatusHandler, type StatusHandler, type StatusHandlerOptions } from './createStatusHandler.js';

/** The port the status server listens on unless told (`loopguard serve`, `demo --serve`). */
export const DEFAULT_STATUS_PORT = 7070;

/**
 * Options of {@link startStatusServer}: the handler's options plus where to listen.
 * @example { reader, port: 7070, host: '127.0.0.1' }
 */
export interface StartStatusServerOptions extends StatusHandlerOptions {
  /** TCP port; 0 picks a free one. @default 7070 */
  port?: number;
  /**
   * Address to listen on. Any address other than a loopback one requires `token`.
   * @default '127.0.0.1'
   */
  host?: string;
  /** Largest total size of request headers, bytes (larger gets 431). @default 8192 */
  maxHeaderBytes?: number;
}

/**
 * A running status server.
 * @example const { url, close } = await startStatusServer({ reader });
 */
export interface RunningStatusServer {
  /** The base URL, for example `http://127.0.0.1:7070/`. */
  readonly url: string;
  /** The port listened on. */
  readonly port: number;
  /** The node:http server. */
  readonly server: Server;
  /** The request handler. */
  readonly handler: StatusHandler;
  /** Ends event streams and stops listening. */
  close(): Promise<void>;
}

/**
 * Whether `host` is a loopback address or name.
 * @example isLoopback('127.0.0.1') // true
 */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/**
 * Starts the status server (see `createStatusHandler` for the routes), on 127.0.0.1 by default.
 * @throws ConfigurationError when `host` is not loopback and there is no `token`, the token is empty, or the port is bad.
 * @throws StorageError when the store cannot be read at start.
 * @throws Error with code `EADDRINUSE` when the port is taken.
 * @example
 * const reader = new SqliteStatusReader(openLoopGuardDatabase('state.db', { readonly: true }));
 * const server = await startStatusServer({ reader, port: 7070 });
 * console.log(`dashboard at ${server.url}`);
 */
export async function startStatusServer(options: StartStatusServerOptions): Promise<RunningStatusServer> {
  const host = options.host ?? '127.0.0.1';
  const port = options.port ?? DEFAULT_STATUS_PORT;
  if (!(Number.isInteger(port) && port >= 0 && port <= 65_535))
    throw new ConfigurationError(`port must be an integer from 0 to 65535, got ${String(port)}`);
  if (!isLoopback(host) && (options.token === undefined || options.token.length < 16))
    throw new ConfigurationError(
      `host ${host} is not loopback: a token of at least 16 characters is required (token option, --token or LOOPGUARD_TOKEN)`,
    );
  const handler = createStatusHandler(options);
  try {
    await handler.ready;
  } catch (error) {
    handler.close();
    throw error;
  }
  const server = createServer({ maxHeaderSize: options.maxHeaderBytes ?? 8192 }, handler);
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    handler.close();
    throw error;
  }
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shownHost}:${address.port}/`,
    port: address.port,
    server,
    handler,
    async close() {
      handler.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
