import { ConfigurationError, StorageError } from '@loopguard/core';
import {
  type RunningStatusServer,
  type StartStatusServerOptions,
  startStatusServer,
} from '@loopguard/server';
import { CliError } from '../terminal/CliError.js';

/**
 * Starts the status server for a command, turning a port in use or a bad host/token into a
 * one-line {@link CliError} (so is a store that cannot be read at start).
 * @example const server = await serveDashboard({ database, port: 7070 });
 */
export async function serveDashboard(options: StartStatusServerOptions): Promise<RunningStatusServer> {
  try {
    return await startStatusServer(options);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'EADDRINUSE')
      throw new CliError(`--port ${options.port}: the port is in use (choose another with --port)`);
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND')
      throw new CliError(`--host ${options.host}: cannot listen on this address`);
    if (error instanceof ConfigurationError || error instanceof StorageError)
      throw new CliError(error.message, undefined, { cause: error });
    throw error;
  }
}

/**
 * Resolves when the process gets SIGINT or SIGTERM.
 * @example await untilSignal(); await server.close();
 */
export function untilSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const done = (signal: NodeJS.Signals): void => {
      process.off('SIGINT', done);
      process.off('SIGTERM', done);
      resolve(signal);
    };
    process.on('SIGINT', done);
    process.on('SIGTERM', done);
  });
}
