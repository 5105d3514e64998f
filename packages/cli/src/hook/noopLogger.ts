import type { Logger } from '@loopguard/core/internal';

const noop = (): void => {};

/**
 * A logger that writes nothing and costs nothing to make. The step detector's default is core's `silentLogger`, a silent
 * pino logger, which loads pino; a hook call (one process per tool call) logs nothing, so it passes
 * this one instead.
 * @example new StepLoopDetector({ logger: noopLogger });
 */
export const noopLogger: Logger = {
  level: 'silent',
  child: () => noopLogger,
  fatal: noop,
  error: noop,
  warn: noop,
  info: noop,
  debug: noop,
  trace: noop,
  silent: noop,
  isLevelEnabled: () => false,
} as unknown as Logger;
