import { describe, expect, it } from 'vitest';
import {
  ClaudeStreamJsonParser,
  CodexJsonParser,
  CodexRolloutSteps,
  claudeToolResponseText,
  GeminiCliSteps,
  GeminiStreamJsonParser,
  geminiToolResponse,
  type Step,
  StepLoopDetector,
} from '../../src/entries/steps.js';
import { LoopGuardError } from '../../src/index.js';
import { boundedText, MAX_TEXT_DEPTH } from '../../src/kernel/boundedText.js';

/** JSON text of `depth` arrays nested in each other: `JSON.parse` takes it, `JSON.stringify` of it overflows. */
const deepJson = (depth: number) => `${'['.repeat(depth)}1${']'.repeat(depth)}`;
const deep = (depth: number): unknown => JSON.parse(deepJson(depth));

/** Every step goes into a detector: it is judged, or rejected with a typed error; never an untyped one. */
function judgeAll(steps: Step[]): void {
  const detector = new StepLoopDetector();
  for (const step of steps) {
    try {
      detector.observe(step);
    } catch (error) {
      expect(error).toBeInstanceOf(LoopGuardError);
    }
  }
}

describe('boundedText: any outside value as text, never a throw', () => {
  it('never calls String() on an object: {"toString": 0} is its JSON', () => {
    expect(boundedText({ toString: 0 })).toBe('{"toString":0}');
    expect(boundedText([{ type: { toString: 0 } }])).toBe('[{"type":{"toString":0}}]');
  });

  it('writes JSON as JSON.stringify does for ordinary values; null and undefined are empty', () => {
    const value = { a: [1, 'x', null, true], b: { c: 2.5 }, d: undefined };
    expect(boundedText(value)).toBe(JSON.stringify(value));
    expect(boundedText(null)).toBe('');
    expect(boundedText(undefined)).toBe('');
    expect(boundedText(12)).toBe('12');
  });

  it(`cuts nesting deeper than ${MAX_TEXT_DEPTH} levels (5,000 nested arrays do not overflow the stack)`, () => {
    expect(() => JSON.stringify(deep(5000))).toThrow(RangeError);
    const text = boundedText(deep(5000));
    expect(text.startsWith('['.repeat(MAX_TEXT_DEPTH))).toBe(true);
    expect(text).toContain('"…"');
  });

  it('cycles, throwing getters and BigInts are written, not thrown', () => {
    const cycle: Record<string, unknown> = { a: 1 };
    cycle.self = cycle;
    expect(boundedText(cycle)).toBe('{"a":1,"self":"…"}');
    const getter = {
      get x(): string {
        throw new Error('no');
      },
    };
    expect(boundedText(getter)).toContain('…');
    expect(boundedText({ n: 10n })).toBe('{"n":"10"}');
  });

  it('stops at its bound: 300,000 keys give at most maxChars characters', () => {
    const wide = Object.fromEntries(Array.from({ length: 300_000 }, (_, i) => [`k${i}`, i]));
    const text = boundedText(wide, 1000);
    expect(text.length).toBeLessThanOrEqual(1001);
    expect(text.endsWith('…')).toBe(true);
  });
});

describe('each translation gives steps for hostile input (issue 32: toString, deep nesting)', () => {
  it('Claude Code: a tool_result whose block type is {"toString":0}, and one nested 5,000 deep', () => {
    const parser = new ClaudeStreamJsonParser();
    const steps = [
      ...parser.push(
        '{"type":"user","message":{"content":[{"type":"tool_result","content":[{"type":{"toString":0}}]}]}}',
      ),
      ...parser.push(
        `{"type":"user","message":{"content":[{"type":"tool_result","content":${deepJson(5000)}}]}}`,
      ),
      ...parser.push(
        `{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t","name":"Bash","input":{"command":${deepJson(5000)}}}]}}`,
      ),
    ];
    expect(steps[0]).toEqual({ type: 'observation', output: '[{"toString":0}]' });
    expect(steps).toHaveLength(3);
    judgeAll(steps);
    expect(claudeToolResponseText({ stdout: { toString: 0 }, stderr: deep(5000) })).toContain('toString');
  });

  it('Codex: a command and an output nested 5,000 deep, a custom_tool_call input {"toString":0}', () => {
    const exec = new CodexJsonParser();
    const steps = exec.push(
      `{"type":"item.completed","item":{"type":"command_execution","command":${deepJson(5000)},"aggregated_output":${deepJson(5000)},"exit_code":1}}`,
    );
    expect(steps).toHaveLength(2);
    const rollout = new CodexRolloutSteps();
    steps.push(
      ...rollout.item({
        type: 'custom_tool_call',
        name: 'apply_patch',
        input: { toString: 0 },
        call_id: 'c',
      }),
      ...rollout.item({ type: 'custom_tool_call_output', call_id: 'c', output: deep(5000) }),
      ...rollout.item({
        type: 'function_call',
        name: 'exec_command',
        arguments: deepJson(5000),
        call_id: 'd',
      }),
    );
    expect(steps[2]).toEqual({ type: 'action', tool: 'apply_patch', input: '{"toString":0}' });
    judgeAll(steps);
  });

  it('Gemini CLI: a functionResponse, a stream output and a hook response nested 5,000 deep', () => {
    const chat = new GeminiCliSteps().chatReply({
      toolCalls: [
        {
          name: 'read_file',
          args: { p: deep(5000) },
          result: [{ functionResponse: { response: { output: deep(5000) } } }],
        },
        { name: { toString: 0 } },
      ],
    });
    const stream = new GeminiStreamJsonParser().push(
      `{"type":"tool_result","tool_id":"x","status":"error","error":{"message":${deepJson(5000)}}}`,
    );
    expect(chat).toHaveLength(2);
    expect(stream).toHaveLength(1);
    judgeAll([...chat, ...stream]);
    expect(geminiToolResponse({ llmContent: deep(5000), error: { message: { toString: 0 } } })).toEqual({
      output: '{"toString":0}',
      error: true,
    });
  });
});
