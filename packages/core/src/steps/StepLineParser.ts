import { InvalidInputError } from '../kernel/errors.js';
import type { Step } from './step.js';

/**
 * Turns an agent's output, one line at a time, into steps. Pure: no I/O; the caller reads the
 * lines (a child process' stdout, a file) and feeds them in order.
 */
export interface StepLineParser {
  /** The steps in one line of output (often none or one); blank lines give none. */
  push(line: string): Step[];
}

/** Parses one JSON line, or throws an {@link InvalidInputError} naming the line number. */
export function parseJsonLine(line: string, lineNumber: number): unknown {
  try {
    return JSON.parse(line);
  } catch (error) {
    throw new InvalidInputError(`line ${lineNumber} is not JSON: ${line.slice(0, 80)}`, { cause: error });
  }
}
