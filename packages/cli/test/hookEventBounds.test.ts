import { InvalidInputError } from '@loopguard/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { boundedValue, VALUE_BOUNDS } from '../src/hook/boundedValue.js';
import { claudeHook } from '../src/hook/claudeHook.js';
import { EVENT_BOUNDS, parseEventFields, parseEventText } from '../src/hook/eventText.js';
import { HookInputError, MAX_FIELD_CHARS } from '../src/hook/hookEvent.js';
import { answerHookEvent, readHookEvent } from '../src/hook/runHook.js';
import { claudeEvent, hookLog, hookState, tempProject } from './hookHelpers.js';

const deep = (levels: number) => `${'['.repeat(levels)}1${']'.repeat(levels)}`;

describe('the hook bounds every field of an event before any work (issue 32, item 4)', () => {
  it('parses an event within the bounds exactly as JSON.parse does', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 6 })),
        fc.boolean(),
        (event, spaced) => {
          const text = JSON.stringify(event, null, spaced ? 2 : undefined);
          expect(parseEventText(text)).toEqual(JSON.parse(text));
        },
      ),
      { numRuns: 300 },
    );
    expect(Object.keys(parseEventText('{"__proto__":{"a":1}}'))).toEqual(['__proto__']);
  });

  it('replaces a field nested past the bound, or past the member count, by a marker, without parsing it', () => {
    const over = EVENT_BOUNDS.depth + 1;
    const event = parseEventText(`{"a":1,"tool_input":${deep(over)},"b":"x"}`);
    expect(event.a).toBe(1);
    expect(event.b).toBe('x');
    expect(event.tool_input).toMatch(
      new RegExp(
        `^\\[… tool_input of ${2 * over + 1} characters, nested ${over} levels, sha1 [0-9a-f]{40} …\\]$`,
      ),
    );
    // the same field gives the same marker (a repeat is still seen); another gives another
    expect(parseEventText(`{"tool_input":${deep(over)}}`).tool_input).toBe(event.tool_input);
    expect(parseEventText(`{"tool_input":${deep(over + 1)}}`).tool_input).not.toBe(event.tool_input);
    const many = `[${'{},'.repeat(EVENT_BOUNDS.members)}{}]`;
    expect(parseEventText(`{"tool_response":${many}}`).tool_response).toMatch(/members, sha1 /);
    expect(parseEventText(`{"tool_input":${deep(EVENT_BOUNDS.depth)}}`).tool_input).toEqual(
      JSON.parse(deep(EVENT_BOUNDS.depth)),
    );
  });

  it('reads fields given one by one (the MCP tool) within the same bounds, to the same values and markers', () => {
    const many = `[${'{},'.repeat(EVENT_BOUNDS.members)}{}]`;
    const given = fc.oneof(
      fc.jsonValue({ maxDepth: 6 }).map((value) => JSON.stringify(value)),
      fc.constantFrom(deep(EVENT_BOUNDS.depth), deep(EVENT_BOUNDS.depth + 1), many, ' "spaced" '),
    );
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.string(), given), { maxLength: 6 }), (fields) => {
        const text = `{${fields.map(([key, value]) => `${JSON.stringify(key)}:${value}`).join(',')}}`;
        expect(parseEventFields(fields)).toEqual(parseEventText(text));
      }),
      { numRuns: 200 },
    );
    const tooMany = Array.from({ length: EVENT_BOUNDS.fields + 1 }, (_, i): [string, string] => [
      `f${i}`,
      '0',
    ]);
    expect(() => parseEventFields(tooMany)).toThrow(`more than ${EVENT_BOUNDS.fields} fields`);
    for (const text of ['{"a":1},"b":2', '1 2', '', '[1,'])
      expect(() => parseEventFields([['tool_input', text]]), text).toThrow(HookInputError);
  });

  it('refuses, with a typed error naming what is wrong, an event that is not a JSON object or has too many fields', () => {
    const fields = `{${Array.from({ length: EVENT_BOUNDS.fields + 1 }, (_, i) => `"f${i}":0`).join(',')}}`;
    for (const [text, message] of [
      ['not json {', /the event is not JSON/],
      ['[1, 2]', /must be a JSON object/],
      [`${'['.repeat(100_000)}`, /must be a JSON object/],
      ['{"a":1,}', /field name expected/],
      ['{"a" 1}', /':' expected after field a/],
      ['{"a":"x', /a string never ends/],
      ['{"a":[1,2}', /not JSON/],
      ['{"a":1} x', /text after its end/],
      [fields, /more than 256 fields/],
    ] as const) {
      expect(() => parseEventText(text), text.slice(0, 20)).toThrow(message);
      expect(() => parseEventText(text)).toThrow(InvalidInputError);
    }
  });

  it('refuses a string field longer than the bound, naming it', () => {
    const event = (fields: Record<string, unknown>) =>
      JSON.stringify({
        ...claudeEvent('/tmp', 's1', 'PreToolUse'),
        tool_input: {},
        tool_name: 'Bash',
        ...fields,
      });
    expect(() =>
      readHookEvent(claudeHook, event({ tool_name: 'x'.repeat(MAX_FIELD_CHARS + 1) }), {}, '/p'),
    ).toThrow(new HookInputError(`event field tool_name is longer than ${MAX_FIELD_CHARS} characters`));
    expect(() =>
      readHookEvent(claudeHook, event({ session_id: 's'.repeat(MAX_FIELD_CHARS + 1) }), {}, '/p'),
    ).toThrow(/event field session_id is longer/);
  });

  it('hands the detector a tool input within the bounds: depth, members, characters, each cut with a fingerprint', () => {
    expect(boundedValue({ command: 'ls', n: [1, { a: null }] })).toEqual({
      command: 'ls',
      n: [1, { a: null }],
    });
    const wide = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${i}`, i]));
    const cut = boundedValue(wide) as Record<string, unknown>;
    expect(Object.keys(cut)).toHaveLength(VALUE_BOUNDS.members + 1);
    expect(cut['…']).toMatch(/^\[… 2952 more keys, sha1 [0-9a-f]{40} …\]$/);
    expect(boundedValue({ ...wide, k4999: -1 })).not.toEqual(cut); // a change past the bound is still seen
    const nested = JSON.parse(deep(40));
    let level = boundedValue(nested);
    for (let n = 0; n < VALUE_BOUNDS.depth; n++) level = (level as unknown[])[0];
    expect(level).toMatch(/^\[… nested deeper than 32 levels, sha1 /);
    const long = boundedValue({ a: 'x'.repeat(100_000), b: 'y'.repeat(100_000) }) as { a: string; b: string };
    expect(long.a.length + long.b.length).toBeLessThan(VALUE_BOUNDS.chars + 400);
    expect(long.a).toContain('[… 100000 characters, sha1 ');
  });

  it('keeps a session’s stored state within a bound: its 90th call stores less than 1.5× its 30th', async () => {
    const project = tempProject();
    const sizes: number[] = [];
    for (let n = 0; n < 90; n++) {
      const event = claudeEvent(project, 's1', 'PostToolUse', {
        tool_name: 'Edit',
        tool_input: {
          file_path: `src/f${n}.ts`,
          new_string: `${n} `.repeat(5000),
          keys: Object.fromEntries(Array.from({ length: 2500 }, (_, i) => [`k${i}`, n])),
        },
        tool_response: { filePath: `src/f${n}.ts`, text: `edited ${n} `.repeat(3000) },
      });
      await answerHookEvent('claude', JSON.stringify(event), { env: {}, cwd: project });
      if (n === 29 || n === 89) {
        const [session] = hookState(project).sessions;
        sizes.push(String(session?.snapshot).length + String(session?.last_results).length);
      }
    }
    expect(hookLog(project)).toEqual([]);
    const [at30, at90] = sizes as [number, number];
    expect(at90).toBeLessThan(1.5 * at30);
    expect(at90).toBeLessThan(1_000_000);
  });
});
