import { describe, expect, it } from 'vitest';
import { ClaudeStreamJsonParser, JsonlStepParser, type StepLineParser } from '../../src/entries/steps.js';
import { InvalidInputError } from '../../src/index.js';

const parsers: Array<[string, () => StepLineParser]> = [
  ['ClaudeStreamJsonParser', () => new ClaudeStreamJsonParser()],
  ['JsonlStepParser', () => new JsonlStepParser()],
];

describe.each(parsers)('%s: lines that are not strings', (_name, make) => {
  it.each([
    [42, 'number 42'],
    [null, 'null'],
    [undefined, 'undefined'],
    [{ type: 'message', text: 'hi' }, 'object'],
    [Buffer.from('{}'), 'object'],
  ])('rejects %o with an InvalidInputError naming the line', (line, described) => {
    const parser = make();
    parser.push('');
    const error = (() => {
      try {
        parser.push(line as never);
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as Error).message).toMatch(/^line 2 must be a string, got /);
    expect((error as Error).message).toContain(described);
  });

  it('goes on with the next line after a rejected one', () => {
    const parser = make();
    expect(() => parser.push(7 as never)).toThrow(InvalidInputError);
    expect(() => parser.push('{oops')).toThrow(/^line 2 is not JSON/);
    expect(parser.push('  ')).toEqual([]);
  });
});
