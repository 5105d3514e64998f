import { InvalidInputError } from '../../kernel/errors.js';
import { type Step, validateStep } from '../step.js';
import { readJsonLine, type StepLineParser } from './StepLineParser.js';

/**
 * The generic JSON-lines format: one step per line, in the shape {@link StepLoopDetector.observe}
 * takes (`{"type":"action","tool":"bash","input":"ls"}`, `{"type":"observation","output":"...","error":true}`,
 * `{"type":"message","text":"..."}`). Extra fields are ignored; blank lines are skipped.
 *
 * @example
 * const parser = new JsonlStepParser();
 * parser.push('{"type":"message","text":"hi"}'); // [{ type: 'message', text: 'hi' }]
 */
export class JsonlStepParser implements StepLineParser {
  private lines = 0;

  /** @throws InvalidInputError naming the line number and the offending field (or a line that is not a string). */
  push(line: string, parsed?: unknown): Step[] {
    this.lines++;
    const value = readJsonLine(line, this.lines, parsed);
    if (value === undefined) return [];
    try {
      return [validateStep(value)];
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new InvalidInputError(`line ${this.lines}: ${reason}`, { cause: error });
    }
  }
}
