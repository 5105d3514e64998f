import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  ClaudeStreamJsonParser,
  JsonlStepParser,
  type Step,
  type StepLineParser,
} from '../../src/entries/steps.js';
import { InvalidInputError } from '../../src/index.js';
import { COUNTS_ONLY, detections, feed, makeStepDetector } from './helpers.js';

const fixtures = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');
const linesOf = (name: string) => readFileSync(join(fixtures, name), 'utf8').split('\n');
const parseAll = (parser: StepLineParser, lines: readonly string[]): Step[] =>
  lines.flatMap((line) => parser.push(line));

describe('ClaudeStreamJsonParser', () => {
  const steps = parseAll(new ClaudeStreamJsonParser(), linesOf('claude-stream.jsonl'));

  it('turns tool_use blocks into actions, tool results into observations; narration and thinking are no steps', () => {
    expect(steps.slice(0, 2)).toEqual([
      { type: 'action', tool: 'Read', input: { file_path: '/work/app/src/parse.ts' } },
      {
        type: 'observation',
        tool: 'Read',
        output:
          "     1\texport function parse(input: string) {\n     2\t  return input.split(',');\n     3\t}",
      },
    ]);
    expect(steps[3]).toMatchObject({ type: 'observation', tool: 'Bash', error: true });
    expect(steps.filter((s) => s.type === 'action')).toHaveLength(4);
    // the thinking block and the text before each tool call are what no hook sees
    expect(steps.filter((s) => s.type === 'message')).toEqual([]);
    expect(steps).toHaveLength(8);
  });

  it('the recorded stream nudges on the third same failure despite reworded descriptions', () => {
    const { detector } = makeStepDetector(COUNTS_ONLY);
    const found = detections(feed(detector, steps));
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ action: 'nudge', loopType: 'same_error', repeats: 3, step: 7 });
    // the message shows the command, not its input object
    expect(found[0]?.message).not.toContain('{"command"');
  });

  it('system, result and unknown events give no steps; bad JSON is an InvalidInputError with the line number', () => {
    const parser = new ClaudeStreamJsonParser();
    expect(parser.push('{"type":"system","subtype":"init"}')).toEqual([]);
    expect(parser.push('   ')).toEqual([]);
    expect(parser.push('42')).toEqual([]);
    expect(() => parser.push('{not json')).toThrow(InvalidInputError);
    expect(() => parser.push('{not json')).toThrow(/^line 5 is not JSON/);
  });

  it('a string content and a result without a known tool_use still parse; the last text comes with the result', () => {
    const parser = new ClaudeStreamJsonParser();
    expect(parser.push('{"type":"assistant","message":{"content":"Done."}}')).toEqual([]);
    expect(parser.push('{"type":"result","result":"Done."}')).toEqual([{ type: 'message', text: 'Done.' }]);
    expect(
      parser.push(
        '{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"x","content":[{"type":"image"}]}]}}',
      ),
    ).toEqual([{ type: 'observation', output: '[image]' }]);
  });
});

describe('JsonlStepParser', () => {
  it('reads the generic format, dropping extra fields and skipping blank lines', () => {
    const parser = new JsonlStepParser();
    const steps = parseAll(parser, [
      '{"type":"message","text":"THOUGHT: list files"}',
      '',
      '{"type":"action","tool":"bash","input":"ls"}',
      '{"type":"observation","tool":"bash","output":"a\\nb","error":false,"exitCode":0}',
    ]);
    expect(steps).toEqual([
      { type: 'message', text: 'THOUGHT: list files' },
      { type: 'action', tool: 'bash', input: 'ls' },
      { type: 'observation', tool: 'bash', output: 'a\nb' },
    ]);
  });

  it('a bad step names the line and the field', () => {
    const parser = new JsonlStepParser();
    parser.push('{"type":"message","text":"ok"}');
    expect(() => parser.push('{"type":"action","tool":"bash"}')).toThrow(
      /^line 2: step\.input must be present/,
    );
    expect(() => parser.push('[')).toThrow(/^line 3 is not JSON/);
  });
});

describe('real runs: repetitive-looking progress from the SWE-bench corpus', () => {
  it.each(['sphinx-doc__sphinx-8475.jsonl', 'django__django-16950.jsonl', 'sphinx-doc__sphinx-9229.jsonl'])(
    '%s: no detection',
    (name) => {
      const steps = parseAll(new JsonlStepParser(), linesOf(name));
      expect(steps.length).toBeGreaterThan(20);
      expect(detections(feed(makeStepDetector().detector, steps))).toEqual([]);
    },
  );

  it('matplotlib__matplotlib-24177.jsonl: no detection; its `sed -i` rewrites of the debug print it typed are no attempt', () => {
    // Two `sed -i` substitutions in a debug print, matching nothing, then the same output a third
    // time. Every build before this rule nudged here (the whole run's step
    // 122). The whole run typed that print itself (`print(f"DEBUG: _update_patch_limits …")`), so
    // both rewrites change what the agent asks, not the code it fixes. In this excerpt, which begins
    // after that print was typed, the first rewrite's pattern (`DEBUG: `) is inside the print the
    // excerpt's first change types; the second is a change like any other: one round, no loop.
    const steps = parseAll(new JsonlStepParser(), linesOf('matplotlib__matplotlib-24177.jsonl'));
    expect(detections(feed(makeStepDetector().detector, steps))).toEqual([]);
  });
});
