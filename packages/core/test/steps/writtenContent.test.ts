import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { StepLoopDetector } from '../../src/entries/steps.js';
import { normalizeVolatile } from '../../src/signatures/normalizeVolatile.js';
import { CONTENT_FIELDS } from '../../src/steps/actions/actionKind.js';
import { actionText } from '../../src/steps/actions/inputText.js';
import { writtenContent } from '../../src/steps/actions/writtenContent.js';
import { actionKey, compactKey } from '../../src/steps/keys/stepKeys.js';
import { feed, makeStepDetector, turn } from './helpers.js';

const EDITOR = 'str_replace_editor';
const keyOf = (input: unknown) => actionKey(EDITOR, actionText(input), input);
const edit = (path: string, from: string, to: string) => ({
  command: 'str_replace',
  path,
  old_str: from,
  new_str: to,
});

describe('an editor call is identified by what it writes, as written', () => {
  it('two edits writing different durations, addresses or line numbers are two actions', () => {
    expect(keyOf(edit('/w/a.py', 'timeout = 30s', 'timeout = 60s'))).not.toBe(
      keyOf(edit('/w/a.py', 'timeout = 60s', 'timeout = 90s')),
    );
    expect(keyOf({ command: 'create', path: '/w/m.c', file_text: 'int mask = 0x1f;' })).not.toBe(
      keyOf({ command: 'create', path: '/w/m.c', file_text: 'int mask = 0xff;' }),
    );
    expect(keyOf(edit('/w/a.py', 'x', 'see a.py:12'))).not.toBe(keyOf(edit('/w/a.py', 'x', 'see a.py:40')));
  });

  it('its whitespace is its own: indentation is part of what is written', () => {
    expect(keyOf(edit('/w/a.py', 'x', 'if a:\n    b()'))).not.toBe(
      keyOf(edit('/w/a.py', 'x', 'if a:\n  b()')),
    );
  });

  it('the rest of its input is still read without what changes from run to run', () => {
    expect(keyOf(edit('/tmp/tmp.Xa1/a.py', 'a', 'b'))).toBe(keyOf(edit('/tmp/tmp.Qz9/a.py', 'a', 'b')));
    expect(keyOf(edit('/w/a.py', 'a', 'b'))).toBe(
      keyOf({ path: '/w/a.py', new_str: 'b', command: 'str_replace', old_str: 'a' }),
    );
    expect(keyOf({ ...edit('/w/a.py', 'a', 'b'), thought: 'try again' })).toBe(
      keyOf(edit('/w/a.py', 'a', 'b')),
    );
  });

  it('a command line keeps its masks', () => {
    expect(actionKey('bash', 'sleep 30s && ls   /tmp/x1')).toBe(actionKey('bash', 'sleep 60s && ls /tmp/x2'));
    expect(writtenContent({ command: 'ls /tmp/x1' })).toBeUndefined();
    expect(writtenContent('edit 1:2')).toBeUndefined();
    // the same text, the same key: a content field left undefined is no field (as `actionText` reads it)
    expect(keyOf({ command: 'view', path: '/w/a.py', new_str: undefined })).toBe(
      keyOf({ command: 'view', path: '/w/a.py' }),
    );
  });

  it("a SWE-agent editing command's lines after the first are what it writes", () => {
    expect(writtenContent('edit 3:3\n    sleep(30s)\nend_of_edit')).toEqual({
      rest: 'edit 3:3',
      written: '    sleep(30s)\nend_of_edit',
    });
    const swe = (body: string) => actionKey('bash', body, body);
    expect(swe('edit 3:3\nsleep(30s)\nend_of_edit')).not.toBe(swe('edit 3:3\nsleep(60s)\nend_of_edit'));
    expect(swe('edit 3:3\nx\nend_of_edit')).toBe(swe('edit   3:3\nx\nend_of_edit'));
  });

  it('the rest is the text of the input without its content fields, as a copy without them reads (observe37t)', () => {
    const field = fc.constantFrom(
      'command',
      'path',
      'description',
      '__proto__',
      'view_range',
      ...CONTENT_FIELDS,
    );
    const value = fc.oneof(
      fc.string(),
      fc.integer(),
      fc.constant(undefined),
      fc.array(fc.string(), { maxLength: 2 }),
    );
    fc.assert(
      fc.property(fc.dictionary(field, value, { maxKeys: 8 }), (input) => {
        const copy: Record<string, unknown> = { ...input };
        for (const key of CONTENT_FIELDS) delete copy[key];
        const found = writtenContent(input);
        if (found !== undefined) expect(found.rest).toBe(actionText(copy));
        const written = Object.keys(input).some(
          (key) => CONTENT_FIELDS.includes(key) && input[key] !== undefined,
        );
        expect(found !== undefined).toBe(written);
      }),
      { numRuns: 3_000 },
    );
  });

  it('the content is one-to-one with its fields: a value cannot pose as another field', () => {
    expect(keyOf({ command: 'create', path: '/w/a', file_text: 'ab', content: 'c' })).not.toBe(
      keyOf({ command: 'create', path: '/w/a', file_text: 'a', content: 'bc' }),
    );
  });

  it("an older build's snapshot is restored: its edits' keys read as new once, the loop is still stopped", () => {
    const repeated = Array.from({ length: 6 }, () =>
      turn(
        edit('/w/a.py', 'retries = 1', 'retries = 2'),
        'ERROR: the file /w/a.py has no line "retries = 1"',
        {
          tool: EDITOR,
          error: true,
        },
      ),
    ).flat();
    const uninterrupted = feed(makeStepDetector().detector, repeated);
    const firstStop = uninterrupted.findIndex((v) => v.action === 'stop');
    expect(firstStop).toBeGreaterThan(2);
    // The older build keyed an edit by its whole normalised text (`stepKeys.ts` before observe37s).
    const { detector } = makeStepDetector();
    feed(detector, repeated.slice(0, 2));
    const snapshot = JSON.parse(JSON.stringify(detector.snapshot()));
    for (const turnState of snapshot.history.recent) {
      turnState.actionKey = compactKey(`${EDITOR}\u0000${normalizeVolatile(turnState.actionText)}`);
    }
    const restored = StepLoopDetector.restore(snapshot);
    const after = feed(restored, repeated.slice(2));
    const stop = after.findIndex((v) => v.action === 'stop');
    expect(stop).not.toBe(-1);
    expect(2 + stop).toBeLessThanOrEqual(firstStop + 2);
  });
});
