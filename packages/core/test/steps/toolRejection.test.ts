import { describe, expect, it } from 'vitest';
import type { Step } from '../../src/entries/steps.js';
import { detections, feed, makeStepDetector, restoredEachStep, turn } from './helpers.js';

const FILE = '/workspace/repo/src/parse.py';

/** The editor's refusal of one attempt, with the lines it names changing. */
const multiple = (i: number) =>
  `ERROR: No replacement was performed. Multiple occurrences of old_str \`return x\` in lines [${12 + i}, ${40 + i}]. Please ensure it is unique.`;

const shapes = {
  strings: {
    attempt: (i: number, refusal: string | null): Step[] =>
      turn(
        `edit ${12 + i}:${12 + i}\n    return x${i}\nend_of_edit`,
        refusal ?? `[File: ${FILE}]\n${12 + i}: return x${i}`,
        {
          error: refusal !== null,
        },
      ),
    read: (i: number): Step[] => turn(`grep -n "return" src/part${i}.py`, `${i}: return something new ${i}`),
  },
  objects: {
    attempt: (i: number, refusal: string | null): Step[] => [
      {
        type: 'action',
        tool: 'str_replace_editor',
        input: { command: 'str_replace', path: FILE, old_str: 'return x', new_str: `return x${i}` },
      },
      refusal === null
        ? { type: 'observation', output: `The file ${FILE} has been edited.\n    12\treturn x${i}` }
        : { type: 'observation', output: refusal, error: true },
    ],
    read: (i: number): Step[] => [
      {
        type: 'action',
        tool: 'str_replace_editor',
        input: { command: 'view', path: `/workspace/repo/src/part${i}.py` },
      },
      { type: 'observation', output: `     ${i}\treturn something new ${i}` },
    ],
  },
};

describe.each(Object.entries(shapes))(
  'the same tool rejection after every attempt, inputs as %s',
  (_shape, s) => {
    it('refused the same way after every attempt, with reads of new code between: nudge, then stop', () => {
      const steps = [0, 1, 2, 3].flatMap((i) => [...s.read(i), ...s.attempt(i, multiple(i))]);
      const found = detections(feed(makeStepDetector().detector, steps));
      expect(found.map((v) => [v.action, v.loopType])).toEqual([
        ['nudge', 'same_error'],
        ['stop', 'same_error'],
      ]);
      expect(found[1]?.message).toMatch(/refused with the same error|failed/);
    });

    it('an attempt that goes through ends the streak: no stop', () => {
      const steps = [
        ...[0, 1, 2].flatMap((i) => [...s.read(i), ...s.attempt(i, multiple(i))]),
        ...s.attempt(3, null),
        ...[4, 5].flatMap((i) => [...s.read(i), ...s.attempt(i, multiple(i))]),
      ];
      const found = detections(feed(makeStepDetector().detector, steps));
      expect(found.filter((v) => v.action === 'stop')).toEqual([]);
    });

    it('refusals of different kinds are not one streak', () => {
      const refusals = [
        multiple(0),
        'ERROR: File already exists at: /workspace/repo/src/parse.py. Cannot overwrite files using command `create`.',
        multiple(2),
        'ERROR: Parameter `old_str` is required for command: str_replace.',
      ];
      const steps = refusals.flatMap((r, i) => [...s.read(i), ...s.attempt(i, r)]);
      expect(detections(feed(makeStepDetector().detector, steps)).filter((v) => v.action === 'stop')).toEqual(
        [],
      );
    });
  },
);

/**
 * A refusal whose text no error pattern knows and which echoes the attempt: OpenHands' editor
 * (`ERROR:` alone on its first line, then the `old_str` it could not find) and SWE-agent's linter
 * (a header, then the errors and the edit as it would have looked). Each attempt names another
 * anchor, so no two replies are alike; what the tool says first is the same.
 */
/** The block an attempt could not find: `i + 9` lines under the anchor (a refusal that long is not masked as a short echo). */
const oldStr = (i: number, anchor: string) => `if ${anchor}:\n${'    return cache\n'.repeat(i + 9)}`;

const anchored = {
  strings: {
    attempt: (_i: number, anchor: string): Step[] =>
      turn(
        `edit 51:51\n    print(${anchor})\nend_of_edit`,
        `Your proposed edit has introduced new syntax error(s). Please read this error message carefully and then retry editing the file.\n\nERRORS:\n- F821 undefined name '${anchor}'\n\nThis is how your edit would have looked if applied\n-------------------------------------------------\n[File: ${FILE}]\n51:    print(${anchor})\n-------------------------------------------------`,
        { error: true },
      ),
    read: (i: number): Step[] => turn(`grep -n "def " src/part${i}.py`, `${i}: def helper_${i}(): pass`),
  },
  objects: {
    attempt: (i: number, anchor: string): Step[] => [
      {
        type: 'action',
        tool: 'str_replace_editor',
        input: { command: 'str_replace', path: FILE, old_str: oldStr(i, anchor), new_str: 'return None' },
      },
      {
        type: 'observation',
        output: `ERROR:\nNo replacement was performed, old_str \`${oldStr(i, anchor)}\` did not appear verbatim in ${FILE}.`,
        error: true,
      },
    ],
    read: (i: number): Step[] => [
      {
        type: 'action',
        tool: 'str_replace_editor',
        input: { command: 'view', path: FILE, view_range: [10 * i + 1, 10 * i + 10] },
      },
      { type: 'observation', output: `    ${10 * i + 1}\tdef helper_${i}(): pass` },
    ],
  },
};

describe.each(Object.entries(anchored))(
  'a refusal known by what the tool says first, inputs as %s',
  (_shape, s) => {
    const anchors = ['key_value', 'cache_hit', 'lookup_done', 'entry_found'];

    it('every attempt refused the same way, each with another anchor and a look between: nudge, then stop', () => {
      const steps = anchors.flatMap((anchor, i) => [...s.read(i), ...s.attempt(i, anchor)]);
      const found = detections(feed(makeStepDetector().detector, steps));
      expect(found.map((v) => [v.action, v.loopType])).toEqual([
        ['nudge', 'same_error'],
        ['stop', 'same_error'],
      ]);
      expect(found[0]?.message).toMatch(/refused with the same error/);
      // As the command hook plays it: the call and its reply in two processes, the detector restored between.
      expect(detections(restoredEachStep(steps)).map((v) => [v.action, v.step])).toEqual(
        found.map((v) => [v.action, v.step]),
      );
    });

    it('a refusal that goes through between them ends the streak', () => {
      const steps = [
        ...anchors.slice(0, 2).flatMap((anchor, i) => [...s.read(i), ...s.attempt(i, anchor)]),
        ...shapes[_shape as keyof typeof shapes].attempt(2, null),
        ...anchors.slice(2).flatMap((anchor, i) => [...s.read(i + 3), ...s.attempt(i + 3, anchor)]),
      ];
      expect(detections(feed(makeStepDetector().detector, steps))).toEqual([]);
    });
  },
);

describe('a failing run is not classed by its first line', () => {
  it('runs that fail otherwise after the same banner are different failures', () => {
    // A program's first line is its own output, not what went wrong: only a tool's refusal is
    // named by what it says first.
    const steps = ['parse', 'render', 'export', 'upload'].flatMap((stage, i) => [
      ...turn(`python stage_${stage}.py`, `Starting pipeline v2\nstage ${stage} gave up on record ${i}`, {
        error: true,
      }),
      ...turn(`cat logs/${stage}.log`, `${stage}: nothing logged ${i}`),
    ]);
    expect(detections(feed(makeStepDetector().detector, steps))).toEqual([]);
  });
});

describe("a refusal known by what the tool says first, with Claude Code's tools", () => {
  it('Edit refused for a string not found, each time another string, a Read between: nudge, then stop', () => {
    const steps: Step[] = ['key_value', 'cache_hit', 'lookup_done', 'entry_found'].flatMap((anchor, i) => [
      { type: 'action', tool: 'Read', input: { file_path: FILE, offset: 10 * i + 1, limit: 10 } },
      { type: 'observation', tool: 'Read', output: `    ${10 * i + 1}\tdef helper_${i}(): pass` },
      {
        type: 'action',
        tool: 'Edit',
        input: { file_path: FILE, old_string: oldStr(i, anchor), new_string: 'return None' },
      },
      {
        type: 'observation',
        tool: 'Edit',
        output: `<tool_use_error>String to replace not found in file.\nString: ${oldStr(i, anchor)}</tool_use_error>`,
        error: true,
      },
    ]);
    const found = detections(feed(makeStepDetector().detector, steps));
    expect(found.map((v) => [v.action, v.loopType])).toEqual([
      ['nudge', 'same_error'],
      ['stop', 'same_error'],
    ]);
  });
});

describe('a shell line that changes something is not a tool refusing', () => {
  it.each([
    ['command strings', (command: string, output: string): Step[] => turn(command, output, { error: true })],
    [
      'argument objects',
      (command: string, output: string): Step[] => [
        { type: 'action', tool: 'execute_bash', input: { command } },
        { type: 'observation', tool: 'execute_bash', output, error: true },
      ],
    ],
  ])('installs failing otherwise after the same first line are different failures (%s)', (_shape, call) => {
    // `pip install` prints its own progress first; what went wrong comes later and differs.
    const causes = [
      'the wheel needs a C compiler that is not installed',
      'the resolver found two versions that conflict',
      'the index answered with a timeout',
      'the build backend is missing from the archive',
    ];
    const log = () => Array.from({ length: 10 }, (_, n) => `  building step ${n} of the archive`).join('\n');
    const steps = causes.flatMap((cause, i) => [
      ...call(
        `pip install -e .[extra${i}]`,
        `Looking in indexes: https://pypi.org/simple\n${log()}\nERROR: ${cause}`,
      ),
      ...turn(`cat setup.cfg.part${i}`, `[extra${i}]\nrequires = thing${i}`),
    ]);
    expect(detections(feed(makeStepDetector().detector, steps))).toEqual([]);
  });
});
