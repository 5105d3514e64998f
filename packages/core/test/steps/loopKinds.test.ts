import { describe, expect, it } from 'vitest';
import type { Step } from '../../src/entries/steps.js';
import { detections, feed, makeStepDetector, turn } from './helpers.js';

const times = (n: number, make: (i: number) => Step[]): Step[] =>
  Array.from({ length: n }, (_, i) => make(i)).flat();
const view = (lines: string[]) =>
  `[File: /repo/A.java (${lines.length} lines total)]\n${lines.map((l, i) => `${i + 1}:${l}`).join('\n')}`;

describe('verbatim repeats', () => {
  it('the same read with the same result three times in a row nudges, a fourth time stops', () => {
    const verdicts = feed(
      makeStepDetector().detector,
      times(4, () => turn('goto 1481', view(['int a;', 'int b;']))),
    );
    expect(detections(verdicts).map((v) => [v.action, v.loopType, v.step])).toEqual([
      ['nudge', 'repeated_action', 5],
      ['stop', 'repeated_action', 7],
    ]);
  });

  it('the same change with the same result twice in a row nudges, a third time stops', () => {
    const edit = { command: 'str_replace', path: '/r/a.py', old_str: 'x = 1', new_str: 'x = 2' };
    const failed = 'ERROR: No replacement was performed, old_str `x = 1` did not appear verbatim in /r/a.py.';
    const verdicts = feed(
      makeStepDetector().detector,
      times(3, () => [
        { type: 'action', tool: 'str_replace_editor', input: edit },
        { type: 'observation', output: failed, error: true },
      ]),
    );
    expect(detections(verdicts).map((v) => [v.action, v.loopType, v.step])).toEqual([
      ['nudge', 'same_error', 3],
      ['stop', 'same_error', 5],
    ]);
  });

  it('verbatimChangeThreshold changes when a repeated change fires', () => {
    const verdicts = feed(
      makeStepDetector({ verbatimChangeThreshold: 3 }).detector,
      times(2, () => turn("sed -i 's/a/b/' x.py", 'sed: no input files', { error: true })),
    );
    expect(detections(verdicts)).toEqual([]);
  });

  it('verbatimThreshold changes when a run in a row fires', () => {
    const verdicts = feed(
      makeStepDetector({ verbatimThreshold: 3 }).detector,
      times(2, () => turn('ls', 'a.py')),
    );
    expect(detections(verdicts)).toEqual([]);
  });

  it('a silent success repeated in a row is not a verbatim repeat: `cd ..` twice goes somewhere', () => {
    expect(
      detections(
        feed(
          makeStepDetector().detector,
          times(2, () => turn('cd ..', '')),
        ),
      ),
    ).toEqual([]);
  });
});

describe('near-duplicate retries', () => {
  it('a shifted line range rewriting the same block with the same result is a loop', () => {
    const block = 'edit BLOCK:BLOCK\n    return value;\n}\nend_of_edit';
    const verdicts = feed(
      makeStepDetector().detector,
      [71, 70, 69].flatMap((n) =>
        turn(block.replaceAll('BLOCK', String(n)), view(['class A {', '    return value;', '}'])),
      ),
    );
    expect(detections(verdicts)[0]).toMatchObject({
      action: 'nudge',
      loopType: 'near_duplicate',
      repeats: 3,
    });
  });

  it('a reworded search with "No matches found" each time is a loop: the echoed words are masked', () => {
    const searches = ['null TreeSet', 'TreeSet null value', 'deserialize null TreeSet'];
    const verdicts = feed(
      makeStepDetector().detector,
      searches.flatMap((q) => turn(`search_dir "${q}" src`, `No matches found for "${q}" in /repo/src`)),
    );
    expect(detections(verdicts)[0]).toMatchObject({ loopType: 'near_duplicate' });
  });

  it('nearDuplicateSimilarity changes what is near: at 1.0 only the same words are', () => {
    const searches = ['null TreeSet', 'TreeSet null value', 'deserialize null TreeSet'];
    const verdicts = feed(
      makeStepDetector({ nearDuplicateSimilarity: 1 }).detector,
      searches.flatMap((q) => turn(`search_dir "${q}" src`, `No matches found for "${q}" in /repo/src`)),
    );
    expect(detections(verdicts)).toEqual([]);
  });

  it('nearDuplicateThreshold changes when it fires', () => {
    const block = 'edit BLOCK:BLOCK\n    return value;\n}\nend_of_edit';
    const steps = [71, 70, 69].flatMap((n) =>
      turn(block.replaceAll('BLOCK', String(n)), view(['class A {', '    return value;', '}'])),
    );
    expect(detections(feed(makeStepDetector({ nearDuplicateThreshold: 4 }).detector, steps))).toEqual([]);
  });
});

describe('growing output', () => {
  it('the same edit while the file only gains the same block is a loop', () => {
    const block = ['import x;', 'class A {}'];
    const steps = times(4, (i) =>
      turn(
        'edit 1:1\nimport x;\nclass A {}\nend_of_edit',
        view(
          Array(i + 1)
            .fill(block)
            .flat(),
        ),
      ),
    );
    expect(
      detections(
        feed(makeStepDetector({ verbatimThreshold: 9, verbatimChangeThreshold: 9 }).detector, steps),
      )[0],
    ).toMatchObject({
      loopType: 'growing_output',
      repeats: 3,
    });
  });

  it('a poll whose counter really moves is progress, not accumulation', () => {
    const steps = times(20, (i) => turn('cat build.log | tail -1', `compiled ${i * 5} of 100 modules`));
    expect(detections(feed(makeStepDetector().detector, steps))).toEqual([]);
  });
});

describe('same error', () => {
  it('different commands hitting the same wall are one loop: the command words are masked', () => {
    const verdicts = feed(
      makeStepDetector().detector,
      ['cd fastjson', 'cd fastxml', 'cd fasterjson'].flatMap((c) =>
        turn(c, `bash: line 1: cd: ${c.slice(3)}: No such file or directory`, { error: true }),
      ),
    );
    expect(detections(verdicts)[0]).toMatchObject({ loopType: 'same_error', repeats: 3 });
    expect(detections(verdicts)[0]?.message).toContain('3 different attempts failed with the same error');
  });

  it('the same command failing with texts that differ only in noise is a loop', () => {
    const verdicts = feed(
      makeStepDetector().detector,
      times(3, (i) =>
        turn('./mvnw test', `Error: JAVA_HOME is not defined correctly (run ${i + 7}, 0.${i}s)`, {
          error: true,
        }),
      ),
    );
    expect(detections(verdicts)[0]).toMatchObject({ loopType: 'same_error' });
  });

  it('a new error is progress: a fix that fails differently starts the count again', () => {
    const errors = [
      'TypeError: x is undefined',
      'KeyError: limit',
      'AssertionError: expected 3',
      'ValueError: bad row',
    ];
    const verdicts = feed(
      makeStepDetector().detector,
      errors.flatMap((e) => turn('pytest', e, { error: true })),
    );
    expect(detections(verdicts)).toEqual([]);
  });
});

describe('stagnation across different actions', () => {
  it('different commands with one fruitless result are stagnation', () => {
    const commands = ['grep -rn parse_row src', 'ls build', 'git log --oneline -3', 'env | sort | head'];
    const steps = commands.flatMap((c) => turn(c, 'nothing here'));
    expect(detections(feed(makeStepDetector().detector, steps))[0]).toMatchObject({
      loopType: 'stagnation',
      repeats: 4,
    });
  });

  it('sameOutcomeThreshold changes when it fires', () => {
    const commands = ['grep -rn parse_row src', 'ls build', 'git log --oneline -3', 'env | sort | head'];
    const steps = commands.flatMap((c) => turn(c, 'nothing here'));
    expect(detections(feed(makeStepDetector({ sameOutcomeThreshold: 5 }).detector, steps))).toEqual([]);
  });

  it('a run of different commands that only show what was shown before is stagnation', () => {
    const a = 'def a():\n    return 1';
    const commands = [
      'cat a',
      'head a',
      'tail a',
      'more a',
      'less a',
      'sed -n p a',
      'awk 1 a',
      'nl a',
      'pr a',
      'od a',
      'xxd a',
    ];
    const steps = commands.flatMap((c, i) => turn(c, i === 0 ? a : `${a}\n${'#'.repeat(i)}`));
    const found = detections(feed(makeStepDetector({ sameOutcomeThreshold: 99 }).detector, steps));
    expect(found.map((v) => v.loopType)).toEqual(['stagnation', 'stagnation']);
    const later = detections(
      feed(makeStepDetector({ sameOutcomeThreshold: 99, staleTurnThreshold: 10 }).detector, steps),
    );
    expect(later).toEqual([]);
  });

  it('searches for different files that are absent are a sweep, not stagnation', () => {
    const files = ['a.jar', 'b.jar', 'c.jar', 'd.jar', 'e.jar'];
    const steps = files.flatMap((f) => turn(`find_file "${f}"`, `No matches found for "${f}" in /repo`));
    expect(detections(feed(makeStepDetector().detector, steps))).toEqual([]);
  });

  it('one command over many files with silent successes is progress', () => {
    const steps = times(30, (i) => turn(`git checkout src/file${i}.py`, 'Updated 1 path from the index'));
    expect(detections(feed(makeStepDetector().detector, steps))).toEqual([]);
  });
});

describe('rejected turns', () => {
  it('replies without a command, repeated, are a loop; two are not', () => {
    const rejected: Step[] = [
      { type: 'message', text: 'I think the fix is in parse().' },
      { type: 'observation', output: 'Please always provide EXACTLY ONE action in triple backticks.' },
    ];
    const detector = makeStepDetector().detector;
    expect(detections(feed(detector, [...rejected, ...rejected]))).toEqual([]);
    expect(detections(feed(detector, rejected))[0]).toMatchObject({ loopType: 'rejected_turn', repeats: 3 });
  });

  it('empty replies are rejected turns too', () => {
    const steps: Step[] = times(3, () => [{ type: 'message', text: '   ' }]);
    expect(detections(feed(makeStepDetector().detector, steps))[0]).toMatchObject({
      loopType: 'rejected_turn',
    });
  });

  it('rejectedThreshold changes when it fires', () => {
    const steps: Step[] = times(3, () => [{ type: 'message', text: '' }]);
    expect(detections(feed(makeStepDetector({ rejectedThreshold: 4 }).detector, steps))).toEqual([]);
  });
});

describe('cycles longer than 5', () => {
  it('a 10-turn cycle is caught when its second round completes', () => {
    const cycle = times(10, (i) => turn(`step-${i} --flag`, `output of step ${i}: value-${i}`));
    // (with the default staleTurnThreshold of 8, the second round is stagnation before it completes)
    const verdicts = feed(makeStepDetector({ staleTurnThreshold: 20 }).detector, [...cycle, ...cycle]);
    expect(detections(verdicts)[0]).toMatchObject({ loopType: 'cycle', repeats: 2 });
  });

  it('maxCycleLength bounds the cycles looked for', () => {
    const cycle = times(10, (i) => turn(`step-${i} --flag`, `output of step ${i}: value-${i}`));
    const verdicts = feed(makeStepDetector({ maxCycleLength: 8, staleTurnThreshold: 20 }).detector, [
      ...cycle,
      ...cycle,
    ]);
    expect(detections(verdicts).some((v) => v.loopType === 'cycle')).toBe(false);
  });
});

describe('monologue', () => {
  it('near-duplicate messages with nothing learned are a loop', () => {
    const steps: Step[] = [0, 1, 2].map((i) => ({
      type: 'message',
      text: `I'm thinking about the parser... attempt ${i}`,
    }));
    expect(detections(feed(makeStepDetector().detector, steps))[0]).toMatchObject({
      loopType: 'repeated_message',
    });
  });

  it('messageSimilarity changes what is near', () => {
    const texts = [
      'Let me check the parser module now.',
      'Let me check the lexer module now.',
      'Let me check the writer module now.',
    ];
    const steps: Step[] = texts.map((text) => ({ type: 'message', text }));
    expect(detections(feed(makeStepDetector({ messageSimilarity: 0.6 }).detector, steps))).toHaveLength(1);
    expect(detections(feed(makeStepDetector({ messageSimilarity: 0.9 }).detector, steps))).toEqual([]);
  });
});

describe('a short non-repeating run (OpenHands negatives)', () => {
  it('raises nothing', () => {
    const steps = [
      ...turn('ls', 'README.md src tests'),
      ...turn('cat src/a.py', 'def a():\n    return 1'),
      ...turn('pytest', 'FAILED tests/test_a.py::test_a - assert 1 == 2', { error: true }),
      { type: 'message', text: 'The test expects 2.' } as Step,
      ...turn("sed -i 's/return 1/return 2/' src/a.py", ''),
      ...turn('pytest', '1 passed in 0.01s'),
    ];
    expect(detections(feed(makeStepDetector().detector, steps))).toEqual([]);
  });
});
