import { describe, expect, it } from 'vitest';
import { type Step, StepLoopDetector } from '../../src/entries/steps.js';
import { classifyAction, commandTextOf } from '../../src/steps/actions/actionKind.js';
import { otherPackageCopy } from '../../src/steps/probes/packageCopy.js';
import { OutcomeStagnationRule } from '../../src/steps/rules/OutcomeStagnationRule.js';
import { detections, feed, makeStepDetector, restoredEachStep, turn } from './helpers.js';

/** The two shapes an agent gives: SWE-agent-style command strings, or tool-argument objects. */
const shapes = {
  strings: {
    edit: (n: number, file = 'src/parse.py'): Step[] =>
      turn(`sed -i 's/limit = ${n}/limit = ${n + 1}/' ${file}`, ''),
    run: (command: string, output: string, error = false): Step[] => turn(command, output, { error }),
    read: (file: string, content: string): Step[] => turn(`cat ${file}`, content),
    rewriteOwn: (file: string, body: string): Step[] => turn(`cat > ${file} << 'EOF'\n${body}\nEOF`, ''),
    editCalling: (n: number, name: string): Step[] =>
      turn(`sed -i 's/limit = ${n}/limit = ${name}(${n})/' src/parse.py`, ''),
    editRemoving: (n: number, name: string): Step[] =>
      turn(`sed -i 's/limit = ${name}(${n})/limit = ${n}/' src/parse.py`, ''),
  },
  objects: {
    edit: (n: number, file = '/workspace/repo/src/parse.py'): Step[] => [
      {
        type: 'action',
        tool: 'str_replace_editor',
        input: { command: 'str_replace', path: file, old_str: `limit = ${n}`, new_str: `limit = ${n + 1}` },
      },
      {
        type: 'observation',
        tool: 'str_replace_editor',
        output: `The file ${file} has been edited. Here's the result of running \`cat -n\` on a snippet:\n    12\tlimit = ${n + 1}`,
      },
    ],
    run: (command: string, output: string, error = false): Step[] => [
      { type: 'action', tool: 'execute_bash', input: { command } },
      { type: 'observation', tool: 'execute_bash', output, ...(error ? { error: true } : {}) },
    ],
    read: (file: string, content: string): Step[] => [
      { type: 'action', tool: 'str_replace_editor', input: { command: 'view', path: file } },
      { type: 'observation', tool: 'str_replace_editor', output: content },
    ],
    rewriteOwn: (file: string, body: string): Step[] => [
      { type: 'action', tool: 'execute_bash', input: { command: `cat > ${file} << 'EOF'\n${body}\nEOF` } },
      { type: 'observation', tool: 'execute_bash', output: '' },
    ],
    editCalling: (n: number, name: string): Step[] => [
      {
        type: 'action',
        tool: 'str_replace_editor',
        input: {
          command: 'str_replace',
          path: '/workspace/repo/src/parse.py',
          old_str: `limit = ${n}`,
          new_str: `limit = ${name}(${n})`,
        },
      },
      {
        type: 'observation',
        tool: 'str_replace_editor',
        output: 'The file /workspace/repo/src/parse.py has been edited.',
      },
    ],
    editRemoving: (n: number, name: string): Step[] => [
      {
        type: 'action',
        tool: 'str_replace_editor',
        input: {
          command: 'str_replace',
          path: '/workspace/repo/src/parse.py',
          old_str: `limit = ${name}(${n})`,
          new_str: `limit = ${n}`,
        },
      },
      {
        type: 'observation',
        tool: 'str_replace_editor',
        output: 'The file /workspace/repo/src/parse.py has been edited.',
      },
    ],
  },
};

const FAILURE =
  'Traceback (most recent call last):\n  File "t.py", line 3, in <module>\nAssertionError: got 0 rows';

describe.each(Object.entries(shapes))(
  'outcome stagnation, inputs as %s',
  (_shape, { edit, run, read, rewriteOwn, editCalling, editRemoving }) => {
    /** Rounds of: a change to the same file, then the same probe; `output(i)` is its result. */
    const rounds = (count: number, output: (i: number) => string, error = false, file?: string): Step[] =>
      Array.from({ length: count }, (_, i) => [
        ...edit(i, file),
        ...run('cd /workspace/repo && python reproduce.py', output(i), error),
      ]).flat();

    it('edits in one copy of a package, the traceback from another copy: a new file each round is still a loop, both copies named', () => {
      const traceback = (root: string) =>
        `Traceback (most recent call last):\n  File "${root}/pkg/core.py", line 9, in run\nValueError: no docstring`;
      const steps = (root: string): Step[] => [
        ...run('python reproduce.py', traceback(root), true),
        ...[1, 2, 3].flatMap((i) => [
          ...read(`/workspace/repo/pkg/part${i}.py`, `def part${i}(): return ${i}`),
          ...edit(i, `/workspace/repo/pkg/part${i}.py`),
          ...run('python reproduce.py', traceback(root), true),
        ]),
      ];
      const found = detections(feed(makeStepDetector().detector, steps('/testbed')));
      expect(found.map((v) => v.action)).toEqual(['nudge', 'stop']);
      expect(found[0]?.message).toContain(
        'The failing code runs from /testbed/pkg, the edits are in /workspace/repo/pkg',
      );
      // The edited copy is the one that runs: a different change each round, each after a look at
      // the code it changes, stays progress.
      expect(detections(feed(makeStepDetector().detector, steps('/workspace/repo')))).toEqual([]);
    });

    describe('a round that did not act on what it read is stale', () => {
      // Each round reads another helper, then changes the place it changed before; the probe says the same.
      const round4 = [
        ...read('/workspace/repo/src/helpers4.py', 'def fetch_rows_4(query):\n    return query.rows_4'),
        ...edit(4),
        ...run('python reproduce.py', 'same wrong answer: 3'),
      ];
      const rounds = (acting: boolean, count = 4): Step[] => [
        ...run('python reproduce.py', 'same wrong answer: 3'),
        ...[0, 1, 2, 3]
          .slice(0, count)
          .flatMap((i) => [
            ...read(
              `/workspace/repo/src/helpers${i}.py`,
              `def fetch_rows_${i}(query):\n    return query.rows_${i}`,
            ),
            ...(acting ? editCalling(i, `fetch_rows_${i}`) : edit(i)),
            ...run('python reproduce.py', 'same wrong answer: 3'),
          ]),
      ];

      it('a change that writes none of the names the read showed: nudge at the third round, stop at the fourth', () => {
        const found = detections(feed(makeStepDetector().detector, rounds(false)));
        expect(found.map((v) => [v.action, v.loopType])).toEqual([
          ['nudge', 'outcome_stagnation'],
          ['stop', 'outcome_stagnation'],
        ]);
      });

      it('restored from a snapshot of layout 13 (no reads kept): what was read before counts as acted on, what is read after is judged', () => {
        const steps = rounds(false);
        // Cut after the second round's read: the first two learnings are the old rule's.
        const cut = run('', '').length + 2 * (read('', '').length + edit(0).length + run('', '').length) - 2;
        const old = (at: number) => {
          const detector = makeStepDetector().detector;
          feed(detector, steps.slice(0, at));
          const snapshot = JSON.parse(JSON.stringify(detector.snapshot()));
          delete snapshot.history.probes.acted;
          if (snapshot.pending !== null) delete snapshot.pending.written;
          return StepLoopDetector.restore(snapshot);
        };
        // The round whose read came before the restore is not stale; the next two are: the stop comes a round later.
        const migrated = detections(feed(old(cut), steps.slice(cut)));
        expect(migrated.map((v) => v.action)).toEqual(['nudge']);
        expect(detections(feed(old(cut), [...steps.slice(cut), ...round4])).map((v) => v.action)).toEqual([
          'nudge',
          'stop',
        ]);
        // Restored with the reads kept, the verdicts are the uninterrupted detector's.
        const kept = makeStepDetector().detector;
        feed(kept, steps.slice(0, cut));
        const same = StepLoopDetector.restore(JSON.parse(JSON.stringify(kept.snapshot())));
        expect(detections(feed(same, steps.slice(cut))).map((v) => v.action)).toEqual(['nudge', 'stop']);
      });

      it('a change that calls what the read showed acted on it: progress, below the ceiling', () => {
        expect(detections(feed(makeStepDetector().detector, rounds(false, 3))).map((v) => v.action)).toEqual([
          'nudge',
        ]);
        expect(detections(feed(makeStepDetector().detector, rounds(true, 3)))).toEqual([]);
        // Acting on what it read does not lift the ceiling: a fourth change at the same place is a loop.
        expect(
          detections(feed(makeStepDetector().detector, rounds(true, 4))).map((v) => [v.action, v.repeats]),
        ).toEqual([['nudge', 5]]);
      });

      it('a change that takes out a call the read showed acted on it too: progress', () => {
        // Each read shows the helper deprecated; the change takes its call out where it was written.
        const steps = [
          ...run('python reproduce.py', 'same wrong answer: 3'),
          ...[0, 1, 2].flatMap((i) => [
            ...read(
              `/workspace/repo/src/helpers${i}.py`,
              `def legacy_rows_${i}(query):\n    raise DeprecationWarning`,
            ),
            ...editRemoving(i, `legacy_rows_${i}`),
            ...run('python reproduce.py', 'same wrong answer: 3'),
          ]),
        ];
        expect(detections(feed(makeStepDetector().detector, steps))).toEqual([]);
      });

      it("another probe's new result is judged by name too: not acted on, the round is stale; acted on, progress", () => {
        // Each round runs another check, whose result is new and names a helper, then changes the
        // place it changed before; the probe says the same.
        const checked = (acting: boolean, count = 4): Step[] => [
          ...run('python reproduce.py', 'same wrong answer: 3'),
          ...[0, 1, 2, 3]
            .slice(0, count)
            .flatMap((i) => [
              ...run(
                `python check_rows.py --case ${i}`,
                `case ${i}: fetch_rows_${i} returned query.rows_${i}`,
              ),
              ...(acting ? editCalling(i, `fetch_rows_${i}`) : edit(i)),
              ...run('python reproduce.py', 'same wrong answer: 3'),
            ]),
        ];
        expect(
          detections(feed(makeStepDetector().detector, checked(false))).map((v) => [v.action, v.loopType]),
        ).toEqual([
          ['nudge', 'outcome_stagnation'],
          ['stop', 'outcome_stagnation'],
        ]);
        expect(detections(feed(makeStepDetector().detector, checked(true, 3)))).toEqual([]);
        // Restored from its snapshot at every step (the command hook's way), the same verdicts.
        expect(detections(restoredEachStep(checked(false))).map((v) => v.action)).toEqual(['nudge', 'stop']);
        expect(detections(restoredEachStep(checked(true, 3)))).toEqual([]);
      });

      it("a read after the round's change is not acted on by it; a change to the agent's own script acts on anything read", () => {
        const after = [
          ...run('python reproduce.py', 'same wrong answer: 3'),
          ...edit(0),
          ...run('python reproduce.py', 'same wrong answer: 3'),
          ...[1, 2, 3].flatMap((i) => [
            ...editCalling(i, `fetch_rows_${i}`),
            ...read(
              `/workspace/repo/src/helpers${i}.py`,
              `def fetch_rows_${i}(query):\n    return query.rows_${i}`,
            ),
            ...run('python reproduce.py', 'same wrong answer: 3'),
          ]),
        ];
        expect(detections(feed(makeStepDetector().detector, after)).map((v) => v.action)).toEqual([
          'nudge',
          'stop',
        ]);
        const own = [
          ...rewriteOwn('/workspace/repo/reproduce.py', 'print(answer())'),
          ...run('python reproduce.py', 'same wrong answer: 3'),
          ...edit(0),
          ...run('python reproduce.py', 'same wrong answer: 3'),
          ...[1, 2, 3].flatMap((i) => [
            ...read(
              `/workspace/repo/src/helpers${i}.py`,
              `def fetch_rows_${i}(query):\n    return query.rows_${i}`,
            ),
            ...edit(i),
            ...rewriteOwn('/workspace/repo/reproduce.py', `print(answer())  # ${i}`),
            ...run('python reproduce.py', 'same wrong answer: 3'),
          ]),
        ];
        expect(detections(feed(makeStepDetector().detector, own))).toEqual([]);
      });
    });

    it('the first edit of a file after a look at it is a hypothesis; its run with the same result after it is not stale yet', () => {
      const steps = [
        ...run('python reproduce.py', 'B: None'),
        ...run('python reproduce.py', 'B: None'),
        ...read('/workspace/repo/src/parse.py', 'def parse(rows):\n    limit = 1'),
        ...rounds(3, () => 'B: None').slice(edit(0).length + run('', '').length),
      ];
      expect(detections(feed(makeStepDetector().detector, steps))).toEqual([]);
    });

    it('a change at a new place each round with nothing learned since the same result is a guess: nudge at the third identical result, stop at the fourth', () => {
      const guesses = (look: boolean) =>
        [
          ...run('python reproduce.py', 'same wrong answer: 3'),
          ...[1, 2, 3].flatMap((i) => [
            ...(look ? read(`/workspace/repo/src/module${i}.py`, `def module${i}(): return ${i}`) : []),
            ...edit(i, `/workspace/repo/src/module${i}.py`),
            ...run('python reproduce.py', 'same wrong answer: 3'),
          ]),
        ] as Step[];
      const found = detections(feed(makeStepDetector().detector, guesses(false)));
      expect(found.map((v) => [v.action, v.loopType, v.repeats])).toEqual([
        ['nudge', 'outcome_stagnation', 3],
        ['stop', 'outcome_stagnation', 4],
      ]);
      // A look at the code before each change: each is a hypothesis, not a guess.
      expect(detections(feed(makeStepDetector().detector, guesses(true)))).toEqual([]);
    });

    it('after the nudge, the result swinging back to one the probe gave before, with other noise, is no progress: stop', () => {
      // A build that warns "more than one target", then "not found" three times (nudged), then
      // "more than one target" again: each run prints its own temporary folder, so no two outputs
      // are equal byte for byte, but what they say is one of two results.
      const probe = 'cd /workspace/repo && python build_docs.py';
      const ambiguous = (run: number) =>
        `/tmp/tmp${run}x7q/index.rst:15: WARNING: more than one target found for 'A': mod.A, mod.sub.A`;
      const missing = (run: number) =>
        `/tmp/tmp${run}x7q/index.rst:15: WARNING: reference target not found: A`;
      const swing = (askMore: boolean): Step[] => [
        ...rewriteOwn('/workspace/repo/build_docs.py', 'build("index.rst")'),
        ...run(probe, ambiguous(0)),
        ...[1, 2, 3].flatMap((i) => [...edit(i), ...run(probe, missing(i))]),
        // The agent asks its script more (a second page): a result it gave before answers a new question.
        ...(askMore
          ? rewriteOwn('/workspace/repo/build_docs.py', 'build("index.rst")\nbuild("api.rst")')
          : []),
        ...edit(4),
        ...run(probe, ambiguous(4)),
      ];
      const found = detections(feed(makeStepDetector().detector, swing(false)));
      expect(found.map((v) => [v.action, v.loopType])).toEqual([
        ['nudge', 'outcome_stagnation'],
        ['stop', 'outcome_stagnation'],
      ]);
      expect(detections(feed(makeStepDetector().detector, swing(true))).map((v) => v.action)).toEqual([
        'nudge',
      ]);
    });

    it('a script that asks more each round, its new case fixed each time, is progress: the same pass and the same failure coming back byte for byte are new answers', () => {
      // The agent's reproduction gains a case, fails on it, the code is fixed, it passes; again.
      // Each failure and each pass reads exactly like the earlier ones, but each answers a new
      // question (the script changed since): a result that comes back counts only since the
      // agent last changed its own scripts, whether it comes back with other noise or none.
      const probe = 'cd /workspace/repo && python reproduce.py';
      const cases = (n: number) => Array.from({ length: n }, (_, i) => `check(${i})`).join('\n');
      const steps: Step[] = [
        ...rewriteOwn('/workspace/repo/reproduce.py', cases(1)),
        ...run(probe, FAILURE, true),
        ...[1, 2, 3, 4].flatMap((i) => [
          ...edit(i),
          ...run(probe, 'all cases pass'),
          ...rewriteOwn('/workspace/repo/reproduce.py', cases(i + 1)),
          ...run(probe, FAILURE, true),
        ]),
        ...edit(5),
        ...run(probe, 'all cases pass'),
      ];
      expect(detections(feed(makeStepDetector().detector, steps))).toEqual([]);
    });

    describe('a script that asks more, its previous answer whole in the new one, is asked the same question', () => {
      const probe = 'cd /workspace/repo && python reproduce.py';
      const script = '/workspace/repo/reproduce.py';
      /** The script's answer in round `round` (0: before any): its first case's line, and one line a case added since. */
      const answer = (round: number, first: string, long = false) =>
        [
          ...(long ? SETUP : []),
          first,
          ...Array.from(
            { length: round },
            (_, i) => `case ${i + 2}: got 0 rows, expected 3${long ? QUERY : ''}`,
          ),
        ].join('\n');
      /** A long answer's setup lines (1,800 characters) and each case's query: past the bounded key's 2,000, its middle dropped. */
      const SETUP = Array.from({ length: 30 }, (_, k) =>
        `setup ${k}: created table app_${k} (id, name, value)`.padEnd(59, '.'),
      );
      const QUERY = ` for SELECT id, name, value FROM app_1 JOIN app_2 ON app_1.id = app_2.id WHERE ${'value > 0 AND '.repeat(16)}name IS NOT NULL`;
      /**
       * Each round changes the code under test where it changed it before (`code: false`: not) and
       * adds a case to the agent's own script; the answer adds the new case's line, and the first
       * case's line is `first(round)`.
       */
      const rounds = (
        count: number,
        {
          code = true,
          first = () => 'case 1: got 0 rows, expected 3',
          long = false,
        }: { code?: boolean; first?: (round: number) => string; long?: boolean } = {},
      ): Step[] => [
        ...rewriteOwn(script, 'check(1)'),
        ...run(probe, answer(0, first(0), long)),
        ...Array.from({ length: count }, (_, i) => [
          ...(code ? edit(i) : []),
          ...edit(i, script),
          ...run(probe, answer(i + 1, first(i + 1), long)),
        ]).flat(),
      ];

      it.each([
        ['short', false],
        ['long (past the bounded key: the old answer whole in its middle, judged on the whole)', true],
      ])(
        'the code changed and the old answer is there unchanged, %s: each round counts, nudge at the third such answer, stop at the fourth',
        (_length, long) => {
          const steps = rounds(3, { long });
          expect(answer(1, '', long).length > 2000).toBe(long);
          const found = detections(feed(makeStepDetector().detector, steps));
          expect(found.map((v) => [v.action, v.loopType])).toEqual([
            ['nudge', 'outcome_stagnation'],
            ['stop', 'outcome_stagnation'],
          ]);
          expect(found[1]?.step).toBe(steps.length - 1);
          // Restored from its snapshot at every step (the command hook's way), the same verdicts.
          expect(detections(restoredEachStep(steps)).map((v) => v.action)).toEqual(['nudge', 'stop']);
        },
      );

      it('what stays a new question: the script alone changed, or a line of the old answer moved', () => {
        // The agent works on its own script (the code untouched): a harness being built.
        expect(detections(feed(makeStepDetector().detector, rounds(4, { code: false })))).toEqual([]);
        // The first case says something else each round: the old answer is not whole in the new one.
        const moving = (round: number) => `case 1: got ${round} rows, expected 3`;
        expect(detections(feed(makeStepDetector().detector, rounds(4, { first: moving })))).toEqual([]);
      });

      it('a line of a long old answer that moves: a new question, also across a snapshot', () => {
        const moving = (round: number) => `case 1: got ${round} rows, expected 3`;
        const moved = rounds(4, { long: true, first: moving });
        expect(detections(feed(makeStepDetector().detector, moved))).toEqual([]);
        expect(detections(restoredEachStep(moved))).toEqual([]);
      });

      it('restored from a snapshot of layout 14 (no lines kept) at every step: judged on the bounded key, as before', () => {
        /** The verdicts with the detector restored at every step from its snapshot, its probes' `lines` left out. */
        const restoredAsLayout14 = (steps: Step[]) => {
          let detector = makeStepDetector().detector;
          return steps.map((step) => {
            const snapshot = JSON.parse(JSON.stringify(detector.snapshot()));
            for (const [, record] of snapshot.history.probes.probes) delete record.lines;
            detector = StepLoopDetector.restore(snapshot);
            return detector.observe(step);
          });
        };
        expect(detections(restoredAsLayout14(rounds(3, { long: true })))).toEqual([]);
        // The short answers fit the bounded key: the same verdicts as the uninterrupted detector.
        expect(detections(restoredAsLayout14(rounds(3))).map((v) => v.action)).toEqual(['nudge', 'stop']);
      });
    });

    describe('after the nudge, a result moved by a new question is no answer', () => {
      const probe = 'cd /workspace/repo && python reproduce.py';
      const failure = 'FAIL: test_rows\nFAIL: test_order\nFAILED (failures=2)';
      // The script asks differently (its own fixture now passes test_order): a failing run's
      // result is its key lines, and they moved because the question did.
      const asked = 'rows: [Row(id=7)]\nFAIL: test_rows\nFAILED (failures=1)';
      /** Nudged on three identical failures, then the agent asks anew (`how`), then `after`. */
      const nudgedThen = (how: 'own script' | 'new script', after: Step[]): Step[] => [
        ...rewriteOwn('/workspace/repo/reproduce.py', 'check_rows()'),
        ...run(probe, failure, true),
        ...[1, 2].flatMap((i) => [...edit(i), ...run(probe, failure, true)]),
        ...(how === 'own script'
          ? [
              // A debug print added to its own script: the output moves, the code did not.
              ...rewriteOwn('/workspace/repo/reproduce.py', 'check_rows()\nprint("rows:", rows)'),
              ...run(probe, asked, true),
            ]
          : [
              ...rewriteOwn('/workspace/repo/debug_rows.py', 'print("rows:", rows)\ncheck_rows()'),
              ...run('python debug_rows.py', asked, true),
            ]),
        ...after,
      ];
      const again = (how: 'own script' | 'new script', i: number): Step[] => [
        ...edit(i),
        ...run(how === 'own script' ? probe : 'python debug_rows.py', asked, true),
      ];

      it.each(['own script', 'new script'] as const)(
        'asked by the %s, the loop shown again by two changes to the code under test stops, with no second nudge',
        (how) => {
          const oneRound = detections(feed(makeStepDetector().detector, nudgedThen(how, again(how, 3))));
          expect(oneRound.map((v) => v.action)).toEqual(['nudge']);
          const steps = nudgedThen(how, [...again(how, 3), ...again(how, 4)]);
          const found = detections(feed(makeStepDetector().detector, steps));
          expect(found.map((v) => [v.action, v.loopType])).toEqual([
            ['nudge', 'outcome_stagnation'],
            ['stop', 'outcome_stagnation'],
          ]);
          expect(found[1]?.step).toBe(steps.length - 1);
          expect(found[1]?.followsNudge).toBe(true);
        },
      );

      it("a round that changes only the agent's own script cannot show the loop again: no stop", () => {
        // After the new question, one change to the code under test, then a debug print added to
        // the script that never shows: looking, not trying.
        const steps = nudgedThen('own script', [
          ...again('own script', 3),
          ...edit(4, '/workspace/repo/reproduce.py'),
          ...run(probe, asked, true),
        ]);
        expect(detections(feed(makeStepDetector().detector, steps)).map((v) => v.action)).toEqual(['nudge']);
      });

      it('restored from a snapshot of the layout before (no counts of new questions), the nudged loop still stops', () => {
        const before = nudgedThen('own script', []).slice(
          0,
          -(rewriteOwn('', '').length + run('', '').length),
        );
        const detector = makeStepDetector().detector;
        expect(detections(feed(detector, before)).map((v) => v.action)).toEqual(['nudge']);
        const snapshot = JSON.parse(JSON.stringify(detector.snapshot()));
        delete snapshot.history.probes.questions;
        delete snapshot.rules.outcome_stagnation.questionsAt;
        const restored = StepLoopDetector.restore(snapshot);
        const rest = nudgedThen('own script', [...again('own script', 3), ...again('own script', 4)]).slice(
          before.length,
        );
        expect(detections(feed(restored, rest)).map((v) => v.action)).toEqual(['stop']);
      });

      it('a result moved by a change to the code under test still ends the nudged loop', () => {
        const steps = nudgedThen('own script', [
          ...edit(3),
          ...run(probe, 'rows: [Row(id=7)]\nFAILED (errors=1)', true),
          ...again('own script', 4),
          ...again('own script', 5),
        ]);
        expect(detections(feed(makeStepDetector().detector, steps)).map((v) => v.action)).toEqual(['nudge']);
      });
    });

    it('a line that changes and runs the probe (`rm -rf _build && sphinx-build`) prepares it: no guess', () => {
      // The agent rewrites its own config whole before each build (a new experiment each time); the
      // probe's own line removes the build output. Neither is a change to the code under test.
      const probe = 'cd /workspace/docs && rm -rf _build && sphinx-build -b html . _build/html';
      const steps = [
        ...rewriteOwn('/workspace/docs/conf.py', 'extensions = []'),
        ...run(probe, 'build succeeded, 1 warning.'),
        ...[1, 2, 3, 4].flatMap((i) => [
          ...rewriteOwn('/workspace/docs/conf.py', `extensions = []\noption = ${i}`),
          ...run(probe, 'build succeeded, 1 warning.'),
        ]),
      ];
      expect(detections(feed(makeStepDetector().detector, steps))).toEqual([]);
    });

    it('the same result after every edit of one file: nudge at the third identical result, stop at the fourth', () => {
      const found = detections(
        feed(
          makeStepDetector().detector,
          rounds(4, () => 'B.value.__doc__: None'),
        ),
      );
      expect(found[0]?.step).toBe(rounds(3, () => '').length - 1);
      expect(found.map((v) => [v.action, v.loopType, v.repeats])).toEqual([
        ['nudge', 'outcome_stagnation', 3],
        ['stop', 'outcome_stagnation', 4],
      ]);
      expect(found[0]?.message).toContain('did not change the output of `python reproduce.py`');
      // since which call, once (the rule's summary left it to the message)
      expect(found[0]?.message).toMatch(/3 runs gave the same result, since call \d+\./);
    });

    it('the same failure with noise that differs (line numbers, addresses, timings, pids) is the same result', () => {
      const noisy = (i: number) =>
        `Traceback (most recent call last):\n  File "/workspace/repo/pkg/mod.py", line ${10 + i}, in f\n` +
        `ValueError: bad widget <Widget at 0x7f${i}a3b> (pid ${4000 + i}, 0.${i}s)`;
      const found = detections(feed(makeStepDetector().detector, rounds(3, noisy, true)));
      expect(found[0]).toMatchObject({ action: 'nudge', loopType: 'outcome_stagnation' });
    });

    it('a failure whose debug output around it varies is the same failure', () => {
      const debug = (i: number) => `DEBUG: tried variant ${i}\n${FAILURE}`;
      const found = detections(feed(makeStepDetector().detector, rounds(3, debug, true)));
      expect(found[0]).toMatchObject({ loopType: 'outcome_stagnation' });
    });

    describe('what stays progress', () => {
      it('a result that changes: a new error each round', () => {
        const errors = [
          'KeyError: limit',
          'TypeError: x is None',
          'ValueError: bad row',
          'IndexError: 3',
          'OSError: eof',
        ];
        const steps = rounds(5, (i) => `Traceback (most recent call last):\n${errors[i]}`, true);
        expect(detections(feed(makeStepDetector().detector, steps))).toEqual([]);
      });

      it('a count that moves: 12 failed, then 9 failed, ...', () => {
        const steps = rounds(5, (i) => `${12 - 3 * i} failed, ${3 * i} passed in 1.${i}s`, true);
        expect(detections(feed(makeStepDetector().detector, steps))).toEqual([]);
      });

      it('a metric that moves: RMS 97, 89, 23', () => {
        const steps = rounds(3, (i) => `RMS: ${[97, 89, 23][i]}`);
        expect(detections(feed(makeStepDetector().detector, steps))).toEqual([]);
      });

      it('another failing test each round', () => {
        const steps = rounds(5, (i) => `FAILED tests/test_parse.py::test_case_${i} - assert False`, true);
        expect(detections(feed(makeStepDetector().detector, steps))).toEqual([]);
      });

      it('a result that changes only at its end, below a flood of debug lines (kept across a snapshot too)', () => {
        const flood = 'DEBUG: update patch limits max_y=1.0 for Rectangle\n'.repeat(60);
        // Its end: the verdict line and a temporary file's random name (noise).
        const ending = (top: number, i: number) =>
          `${flood}step hist ylim top = ${top}\nsaved /tmp/tmp${['q8x2ka', 'zt41mw', 'c0pe7d', 'hh3v9s'][i]}/plot.png\n`;
        const verdictMoves = (i: number) => ending([27, 31, 35, 42][i] as number, i);
        const verdictStays = (i: number) => ending(27, i);
        // The hook restores the detector from its snapshot before every call: the same judgement.
        const restoredEachStep = (steps: Step[]) => {
          let detector = makeStepDetector().detector;
          return steps.map((step) => {
            detector = StepLoopDetector.restore(JSON.parse(JSON.stringify(detector.snapshot())));
            return detector.observe(step);
          });
        };
        for (const play of [(steps: Step[]) => feed(makeStepDetector().detector, steps), restoredEachStep]) {
          expect(detections(play(rounds(4, verdictMoves)))).toEqual([]);
          // The same end, its noise aside, is still the same result.
          expect(detections(play(rounds(3, verdictStays))).map((v) => v.action)).toEqual(['nudge']);
        }
      });

      it('one command over different files: each is another probe', () => {
        const steps = Array.from({ length: 6 }, (_, i) => [
          ...edit(i),
          ...run(`python -m pytest tests/test_${i}.py`, '1 passed in 0.1s'),
        ]).flat();
        expect(detections(feed(makeStepDetector().detector, steps))).toEqual([]);
      });

      it('each round edits a file not edited before, after a look at it: a new hypothesis, not a retry', () => {
        const steps = Array.from({ length: 5 }, (_, i) => [
          ...(i === 0
            ? []
            : [
                ...read(`/workspace/repo/src/module${i}.py`, `def module${i}(): return ${i}`),
                ...edit(i, `/workspace/repo/src/module${i}.py`),
              ]),
          ...run('python reproduce.py', 'same wrong answer: 3'),
        ]).flat();
        expect(detections(feed(makeStepDetector().detector, steps))).toEqual([]);
      });

      it('an edit of the probe script itself asks a new question', () => {
        const steps = Array.from({ length: 5 }, (_, i) => [
          ...(i === 0 ? [] : edit(i, '/workspace/reproduce.py')),
          ...run('python /workspace/reproduce.py', 'Changes detected successfully'),
        ]).flat();
        expect(detections(feed(makeStepDetector().detector, steps))).toEqual([]);
      });

      it('a read that shows something new between the runs is investigation, below the ceiling', () => {
        const steps = Array.from({ length: 3 }, (_, i) => [
          ...(i === 0 ? [] : edit(i)),
          ...run(
            `grep -rn "def helper" lib/part${i}`,
            `def helper(): return "${['alpha', 'beta', 'gamma', 'delta', 'omega'][i]}"`,
          ),
          ...run('python reproduce.py', 'B.value.__doc__: None'),
        ]).flat();
        expect(detections(feed(makeStepDetector().detector, steps))).toEqual([]);
      });
    });

    it('probeRepeats changes when the rule fires', () => {
      const steps = rounds(3, () => 'B.value.__doc__: None');
      expect(detections(feed(makeStepDetector({ probeRepeats: 4 }).detector, steps))).toEqual([]);
      expect(
        detections(
          feed(
            makeStepDetector({ probeRepeats: 2 }).detector,
            rounds(2, () => 'x: None'),
          ),
        ),
      ).toHaveLength(1);
    });
  },
);

describe("after the nudge, a new question is no answer, with Claude Code's tools", () => {
  const call = (tool: string, input: Record<string, unknown>, output: string, error = false): Step[] => [
    { type: 'action', tool, input },
    { type: 'observation', tool, output, ...(error ? { error: true } : {}) },
  ];
  const write = (content: string) =>
    call('Write', { file_path: '/repo/reproduce.py', content }, 'File created successfully');
  const edit = (n: number) =>
    call(
      'Edit',
      { file_path: '/repo/src/rows.py', old_string: `limit = ${n}`, new_string: `limit = ${n + 1}` },
      `The file /repo/src/rows.py has been updated. Here's the result of running \`cat -n\` on a snippet:\n    12\tlimit = ${n + 1}`,
    );
  const run = (output: string) => call('Bash', { command: 'python reproduce.py' }, output, true);
  const failure = 'FAIL: test_rows\nFAIL: test_order\nFAILED (failures=2)';
  const asked = 'rows: [Row(id=7)]\nFAIL: test_rows\nFAILED (failures=1)';

  it('the script rewritten after the nudge, then two changes to the code with the same result: stop, no second nudge', () => {
    const steps = [
      ...write('check_rows()'),
      ...run(failure),
      ...[1, 2].flatMap((i) => [...edit(i), ...run(failure)]),
      ...write('check_rows()\nprint("rows:", rows)'),
      ...run(asked),
      ...[3, 4].flatMap((i) => [...edit(i), ...run(asked)]),
    ];
    const found = detections(feed(makeStepDetector().detector, steps));
    expect(found.map((v) => [v.action, v.loopType])).toEqual([
      ['nudge', 'outcome_stagnation'],
      ['stop', 'outcome_stagnation'],
    ]);
    expect(found[1]?.step).toBe(steps.length - 1);
  });

  it('the new question ends the standing nudge: another loop found right after it is nudged, not stopped', () => {
    // Edits whose replies show nothing new: the same failing call three times is a loop of its own.
    const bareEdit = (n: number) =>
      call(
        'Edit',
        { file_path: '/repo/src/rows.py', old_string: `limit = ${n}`, new_string: `limit = ${n + 1}` },
        'The file /repo/src/rows.py has been updated.',
      );
    const steps = [
      ...write('check_rows()'),
      ...run(failure),
      ...[1, 2].flatMap((i) => [...bareEdit(i), ...run(failure)]),
      ...write('check_rows()\nprint("rows:", rows)'),
      ...run(asked),
    ];
    const found = detections(feed(makeStepDetector().detector, steps));
    expect(found.map((v) => [v.action, v.loopType])).toEqual([
      ['nudge', 'outcome_stagnation'],
      ['nudge', 'same_error'],
    ]);
  });
});

describe('the nudge names the likely cause', () => {
  const round = (i: number): Step[] => [
    {
      type: 'action',
      tool: 'str_replace_editor',
      input: {
        command: 'str_replace',
        path: '/workspace/astropy/utils/misc.py',
        old_str: `a${i}`,
        new_str: `b${i}`,
      },
    },
    {
      type: 'observation',
      output: `The file /workspace/astropy/utils/misc.py has been edited.\n  ${i}\tb${i}`,
    },
    { type: 'action', tool: 'execute_bash', input: { command: 'python reproduce.py' } },
    {
      type: 'observation',
      output:
        'Traceback (most recent call last):\n  File "/testbed/astropy/utils/misc.py", line 540, in __init__\n' +
        '    raise ValueError(doc)\nValueError: no docstring',
      error: true,
    },
  ];

  it('edits in one copy of a file, the traceback in another: two rounds are enough whatever is read or tried between, both paths named', () => {
    const look = (i: number): Step[] => [
      { type: 'action', tool: 'execute_bash', input: { command: `grep -n docstring astropy/part${i}.py` } },
      { type: 'observation', output: `${i}: new code never seen ${i}` },
    ];
    const steps: Step[] = [
      { type: 'action', tool: 'execute_bash', input: { command: 'python reproduce.py' } },
      { type: 'observation', output: 'ValueError: no docstring', error: true },
      ...round(1),
      ...look(1),
      ...round(2),
      ...look(2),
      ...round(3),
    ];
    const found = detections(feed(makeStepDetector().detector, steps));
    expect(found[0]?.loopType).toBe('outcome_stagnation');
    expect(found[0]?.message).toContain(
      'The failing code runs from /testbed/astropy/utils/misc.py, the edits are in /workspace/astropy/utils/misc.py',
    );
  });

  it('without that evidence it says what to check', () => {
    const steps = Array.from({ length: 4 }, (_, i) => [
      ...(i === 0 ? [] : turn(`sed -i 's/a/b${i}/' lib/core.py`, '')),
      ...turn('npm test', 'Tests: 1 failed, 4 passed', { error: true }),
    ]).flat();
    const found = detections(feed(makeStepDetector().detector, steps));
    expect(found[0]?.message).toContain('Check that the edited code is what runs');
  });
});

describe('another copy of an edited package', () => {
  it('the same package folder under another root, with no output path in the edited copy', () => {
    expect(
      otherPackageCopy(['/srv/app/shapes/core/area.py'], ['/workspace/shapes-1.1/shapes/render/text.py']),
    ).toEqual({
      ran: '/srv/app/shapes',
      edited: '/workspace/shapes-1.1/shapes',
    });
    expect(
      otherPackageCopy(
        ['/srv/app/shapes/core/area.py', '/workspace/shapes-1.1/shapes/core/polygon.py'],
        ['/workspace/shapes-1.1/shapes/render/text.py'],
      ),
    ).toBeUndefined();
  });

  it('a repository folder named like its package: the innermost folder is the copy', () => {
    expect(otherPackageCopy(['/testbed/pkg/core.py'], ['/workspace/pkg/pkg/util.py'])).toEqual({
      ran: '/testbed/pkg',
      edited: '/workspace/pkg/pkg',
    });
  });

  it('layout folders (lib, src, site-packages, python3.x) are no package', () => {
    expect(
      otherPackageCopy(['/opt/conda/lib/python3.9/json/decoder.py'], ['/workspace/repo/lib/mpl/axes.py']),
    ).toBeUndefined();
    expect(otherPackageCopy(['/usr/src/app/main.py'], ['/workspace/repo/src/main.py'])).toBeUndefined();
  });
});

describe('what an action does', () => {
  it.each([
    ['execute_bash', { command: 'cd /repo && python reproduce.py' }, 'probe', 'python reproduce.py'],
    ['bash', 'pytest tests/test_a.py -x', 'probe', 'pytest tests/test_a.py -x'],
    ['bash', "sed -i 's/a/b/' x.py && python x.py", 'change', 'python x.py'],
    ['bash', "cat <<'EOF' > t.py\nprint(1 > 0)\nEOF", 'change', ''],
    ['bash', 'python -c "print(1 > 0)"', 'probe', 'python -c "print(1 > 0)"'],
    ['bash', 'grep -rn foo src | head -5', 'read', ''],
    ['bash', 'pip install -e .', 'change', ''],
    ['bash', 'git diff', 'read', ''],
    ['bash', 'edit 12:14\nreturn x;\nend_of_edit', 'change', ''],
    ['str_replace_editor', { command: 'view', path: '/a.py' }, 'read', ''],
    ['str_replace_editor', { command: 'create', path: '/t.py', file_text: 'x' }, 'change', ''],
    ['Edit', { file_path: '/a.ts', old_string: 'a', new_string: 'b' }, 'change', ''],
    ['Read', { file_path: '/a.ts' }, 'read', ''],
    ['shell', { command: ['bash', '-lc', 'npm test'] }, 'probe', 'npm test'],
    // A write that names nothing (no operand, no file, no content) writes nothing: a call.
    ['always_error_tool', { command: 'create' }, 'probe', 'create'],
    ['always_error_tool', 'create', 'probe', 'create'],
    ['bash', 'rm', 'probe', 'rm'],
    ['bash', 'create reproduce.py', 'change', ''],
    ['str_replace_editor', { command: 'undo_edit', path: '/a.py' }, 'change', ''],
  ])('%s %j is a %s', (tool, input, kind, probe) => {
    const found = classifyAction(tool, input);
    expect(found.kind).toBe(kind);
    expect(found.probe).toBe(probe);
  });

  it('reads the command of any input shape', () => {
    expect(commandTextOf('sleep 30')).toBe('sleep 30');
    expect(commandTextOf({ command: 'sleep 30', description: 'wait for CI' })).toBe('sleep 30');
    expect(commandTextOf({ cmd: ['bash', '-lc', 'sleep 30'] })).toBe('sleep 30');
    expect(commandTextOf({ path: '/a' })).toBe('');
  });
});

describe('polling is not looping, whatever the input shape', () => {
  it.each([
    ['a string', 'sleep 30'],
    ["Claude Code's Bash object", { command: 'sleep 30', description: 'Wait for the build' }],
    ["Codex's argument vector", { command: ['bash', '-lc', 'sleep 30'] }],
  ])('%s: sleep between identical status checks is exempt', (_name, sleep) => {
    const steps = Array.from({ length: 6 }, () => [
      ...turn(sleep, ''),
      ...turn({ command: 'gh run view 42' }, 'status: in_progress'),
    ]).flat();
    expect(detections(feed(makeStepDetector().detector, steps))).toEqual([]);
  });

  it('a user adds a polling command of their own', () => {
    const steps = Array.from({ length: 4 }, () =>
      turn({ command: 'make watch' }, 'waiting for changes'),
    ).flat();
    expect(detections(feed(makeStepDetector().detector, steps)).length).toBeGreaterThan(0);
    const { detector } = makeStepDetector({ exemptCommands: [/^make watch\b/] });
    expect(detections(feed(detector, steps))).toEqual([]);
  });
});

describe("the output's source paths are read only where they can decide or are shown", () => {
  /** A ledger's latest update after a run with the same result as its previous one, one change between. */
  const historyWith = (rounds: { changed: number; blind: number }, outputPaths: () => string[]) =>
    ({
      probes: {
        latest: {
          record: {
            label: 'python reproduce.py',
            streak: 2,
            since: 1,
            changesAtStart: 0,
            verdictRounds: 0,
            staleRounds: 0,
            guessRounds: 0,
            blindRounds: rounds.blind,
            changedRounds: rounds.changed,
            runs: [{ step: 1 }, { step: 3 }],
            outputPaths,
          },
          changesSincePrevious: 1,
          staleRound: false,
          blindRound: true,
          verdictNews: false,
          tried: true,
        },
        news: 0,
        questions: 0,
        changes: 1,
        edited: ['/workspace/repo/pkg/core.py'],
        changesSince: () => [{ step: 2, paths: ['/workspace/repo/pkg/core.py'], evidence: { step: 2 } }],
      },
    }) as unknown as Parameters<OutcomeStagnationRule['judge']>[1];
  const event = { kind: 'turn' } as Parameters<OutcomeStagnationRule['judge']>[0];
  /** The rule's verdict on that update, with `repeats` 3: another copy counts from the second changed round. */
  const judged = (rounds: { changed: number; blind: number }, outputPaths: () => string[]) =>
    new OutcomeStagnationRule(3, 3, 4).judge(event, historyWith(rounds, outputPaths));
  const otherCopyRan = () => ['/testbed/pkg/core.py'];

  it('a round too few for another copy to count: no hit, and the output is not searched for paths', () => {
    let reads = 0;
    const hit = judged({ changed: 1, blind: 1 }, () => {
      reads++;
      return otherCopyRan();
    });
    expect(hit).toBeNull();
    expect(reads).toBe(0);
  });

  it('rounds enough: another copy in the output is the evidence, and the advice names both copies', () => {
    const hit = judged({ changed: 2, blind: 1 }, otherCopyRan);
    expect(hit?.advice).toContain('/testbed/pkg/core.py');
    expect(hit?.advice).toContain('/workspace/repo/pkg/core.py');
  });

  it('a hit on other evidence still reads the paths for its advice', () => {
    expect(judged({ changed: 0, blind: 3 }, otherCopyRan)?.advice).toContain('/testbed/pkg/core.py');
  });
});
