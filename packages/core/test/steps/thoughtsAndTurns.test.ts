import { describe, expect, it } from 'vitest';
import type { Step } from '../../src/entries/steps.js';
import { detections, feed, makeStepDetector, turn } from './helpers.js';

const say = (text: string): Step => ({ type: 'message', text });

describe('thoughts belong to the turns they lead to', () => {
  it('the same thought before each of several different edits is no monologue', () => {
    const steps = [12, 40, 77, 130].flatMap((line) => [
      say(`I am now at line ${line}, where the next occurrence is located. I will update it.`),
      ...turn(
        `edit ${line}:${line}\n    value = compute(${line})\nend_of_edit`,
        `[File: /repo/a.java]\n${line}: value = compute(${line})`,
      ),
    ]);
    expect(detections(feed(makeStepDetector().detector, steps)).filter((v) => v.action === 'stop')).toEqual(
      [],
    );
  });

  it('the same message three times with no call between is the monologue', () => {
    const text = 'Let me reconsider the approach before changing anything.';
    const found = detections(feed(makeStepDetector().detector, [say(text), say(text), say(text)]));
    expect(found[0]).toMatchObject({ action: 'nudge', loopType: 'repeated_message' });
  });

  it('a turn loop after a nudge about the thoughts is nudged itself before it is stopped', () => {
    const text = 'Let me reconsider the approach before changing anything.';
    const edit = () =>
      turn(
        { command: 'str_replace', path: '/r/a.py', old_str: 'a', new_str: 'b' },
        'ERROR: No replacement was performed',
        { error: true, tool: 'str_replace_editor' },
      );
    const found = detections(
      feed(makeStepDetector().detector, [say(text), say(text), say(text), ...edit(), ...edit()]),
    );
    expect(found.map((v) => [v.action, v.loopType])).toEqual([
      ['nudge', 'repeated_message'],
      ['nudge', 'same_error'],
    ]);
  });
});

describe.each([
  [
    'strings',
    (i: number) =>
      turn(
        'edit 1:8\n#!/bin/bash\njavac Test.java\nend_of_edit',
        `[File: /repo/Test.java (${66 - i} lines total)]\n1:#!/bin/bash\n2:javac Test.java`,
      ),
  ],
  [
    'objects',
    (i: number) =>
      turn(
        { command: 'str_replace', path: '/repo/Test.java', old_str: 'x', new_str: '#!/bin/bash' },
        `The file /repo/Test.java has been edited.\n${['     1\t#!/bin/bash', '     2\tjavac Test.java', '     3\tjava Test'].slice(i).join('\n')}`,
        { tool: 'str_replace_editor' },
      ),
  ],
] as const)('the same change applied again, inputs as %s', (_shape, apply) => {
  it('its reply showing nothing new (the file only shrank): nudge at the second, stop at the third', () => {
    const found = detections(
      feed(
        makeStepDetector().detector,
        [0, 1, 2].flatMap((i) => apply(i)),
      ),
    );
    expect(found.map((v) => v.action)).toEqual(['nudge', 'stop']);
  });
});
