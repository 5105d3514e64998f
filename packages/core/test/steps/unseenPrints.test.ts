import { describe, expect, it } from 'vitest';
import { type Step, StepLoopDetector } from '../../src/entries/steps.js';
import { searchOf } from '../../src/steps/probes/fileSearch.js';
import { printEdit, printedTexts } from '../../src/steps/probes/unseenPrints.js';
import { detections, feed, makeStepDetector, turn } from './helpers.js';

const CODE = '/repo/django/db/migrations/loader.py';
const SCRIPT = '/repo/reproduce.py';
/** Another file of the code under test, holding no debug print. */
const OTHER = '/repo/django/db/migrations/executor.py';
const CUT = '\n[... Observation truncated due to length ...]\n';

/** The probe's output: a count that moves each run (so no other rule sees the same result), never the debug output. */
const unseen = (round: number): string => `Checked ${round} apps\nUnmigrated apps: {'test_app'}`;

/** The shapes an agent gives: OpenHands' editor and shell (argument objects), Claude Code's Edit, Write and Bash, command lines as strings. */
const shapes = {
  openhands: {
    edit: (path: string, oldText: string, newText: string): Step[] => [
      {
        type: 'action',
        tool: 'str_replace_editor',
        input: { command: 'str_replace', path, old_str: oldText, new_str: newText },
      },
      { type: 'observation', tool: 'str_replace_editor', output: `The file ${path} has been edited.` },
    ],
    write: (path: string, text: string): Step[] => [
      { type: 'action', tool: 'str_replace_editor', input: { command: 'create', path, file_text: text } },
      { type: 'observation', tool: 'str_replace_editor', output: `File created successfully at: ${path}` },
    ],
    run: (output: string, command = `python3 ${SCRIPT}`): Step[] => [
      { type: 'action', tool: 'execute_bash', input: { command } },
      { type: 'observation', tool: 'execute_bash', output },
    ],
  },
  claudeCode: {
    edit: (path: string, oldText: string, newText: string): Step[] => [
      { type: 'action', tool: 'Edit', input: { file_path: path, old_string: oldText, new_string: newText } },
      { type: 'observation', tool: 'Edit', output: `The file ${path} has been updated.` },
    ],
    write: (path: string, text: string): Step[] => [
      { type: 'action', tool: 'Write', input: { file_path: path, content: text } },
      { type: 'observation', tool: 'Write', output: `File created successfully at: ${path}` },
    ],
    run: (output: string, command = `python3 ${SCRIPT}`): Step[] => [
      { type: 'action', tool: 'Bash', input: { command, description: 'Run the repro' } },
      { type: 'observation', tool: 'Bash', output },
    ],
  },
  // A print is read from an editor's arguments only (a shell line that writes one is not read):
  // the edits are the editor's, the runs command lines.
  strings: {
    edit: (path: string, oldText: string, newText: string): Step[] => [
      {
        type: 'action',
        tool: 'str_replace_editor',
        input: { command: 'str_replace', path, old_str: oldText, new_str: newText },
      },
      { type: 'observation', tool: 'str_replace_editor', output: `The file ${path} has been edited.` },
    ],
    write: (path: string, text: string): Step[] => [
      { type: 'action', tool: 'str_replace_editor', input: { command: 'create', path, file_text: text } },
      { type: 'observation', tool: 'str_replace_editor', output: `File created successfully at: ${path}` },
    ],
    run: (output: string, command = `python3 ${SCRIPT}`): Step[] => turn(command, output),
  },
};

/** The line a round edits, and a debug print added after it. */
const line = (round: number): string => `        names_${round} = collect(module_${round})`;
const withPrint = (round: number): string =>
  `${line(round)}\n        print(f"Debug - names in round ${round}: {names_${round}}")`;

describe.each(Object.entries(shapes))(
  'debug output that never shows, inputs as %s',
  (_shape, { edit, write, run }) => {
    const setup = (): Step[] => write(SCRIPT, 'from loader import load\nprint("Checked", load(), "apps")\n');
    /** A round: a debug print added to the code under test, then the probe, which does not show it. */
    const round = (n: number, output = unseen(n)): Step[] => [
      ...edit(CODE, line(n), withPrint(n)),
      ...run(output),
    ];

    it('prints added to the code under test that the probe never shows: nudged at the third run, stopped at the fourth', () => {
      const steps = [...setup(), ...[1, 2, 3, 4].flatMap((n) => round(n))];
      const found = detections(feed(makeStepDetector().detector, steps));
      expect(found.map((v) => [v.action, v.loopType])).toEqual([
        ['nudge', 'near_duplicate'],
        ['stop', 'near_duplicate'],
      ]);
      expect(found[0]?.message).toContain('did not show the debug output added to the code under test');
      expect(found[0]?.message).toContain('The edited code does not run');
    });

    it('restored from its snapshot after every step (a hook process per call), it judges the same', () => {
      const steps = [...setup(), ...[1, 2, 3, 4].flatMap((n) => round(n))];
      let detector = makeStepDetector().detector;
      const verdicts = steps.map((step) => {
        const verdict = detector.observe(step);
        detector = StepLoopDetector.restoreSealed(detector.sealedSnapshot());
        return verdict;
      });
      expect(detections(verdicts).map((v) => v.action)).toEqual(['nudge', 'stop']);
    });

    it('the debug output appearing ends the count: the misses after it start again', () => {
      const shown = `${unseen(4)}\nDebug - names in round 4: ['0001_initial']`;
      const steps = [
        ...setup(),
        ...[1, 2, 3].flatMap((n) => round(n)),
        ...round(4, shown),
        ...[5, 6].flatMap((n) => round(n)),
      ];
      expect(detections(feed(makeStepDetector().detector, steps)).map((v) => v.action)).toEqual(['nudge']);
    });

    it('a print taken out of the code is no longer expected: runs after it are not misses', () => {
      const steps = [
        ...setup(),
        ...[1, 2].flatMap((n) => round(n)),
        // The debug prints removed, then more changes to that code, each run: the agent sees its results.
        ...edit(CODE, `${withPrint(1)}\n${withPrint(2)}`, `${line(1)}\n${line(2)}`),
        ...[3, 4, 5].flatMap((n) => [...edit(CODE, line(n), `${line(n)} or {}`), ...run(unseen(n))]),
      ];
      expect(detections(feed(makeStepDetector().detector, steps))).toEqual([]);
    });

    it('only runs after an edit of the code whose prints never show count: a run after no change leaves the count as it stands', () => {
      const steps = [
        ...setup(),
        ...[1, 2].flatMap((n) => round(n)),
        // Runs again with nothing changed: nothing tried in the code that does not run.
        ...run(unseen(10)),
        ...run(`${unseen(11)}\nSettings: test_settings`),
        ...round(3),
      ];
      const found = detections(feed(makeStepDetector().detector, steps));
      expect(found.map((v) => [v.action, v.loopType, v.step])).toEqual([
        ['nudge', 'near_duplicate', steps.length - 1],
      ]);
      const more = [...steps, ...round(4)];
      expect(detections(feed(makeStepDetector().detector, more)).map((v) => v.action)).toEqual([
        'nudge',
        'stop',
      ]);
    });

    it('a print left where the run never goes while the fix goes to another file: every count starts again, no stop', () => {
      const other = (n: number): Step[] =>
        edit(OTHER, `plan_${n} = build(${n})`, `plan_${n} = build(${n}, clean=True)`);
      // Only the other file changed between runs.
      const elsewhere = [
        ...setup(),
        ...round(1),
        ...[2, 3, 4, 5].flatMap((n) => [...other(n), ...run(unseen(n))]),
      ];
      expect(detections(feed(makeStepDetector().detector, elsewhere))).toEqual([]);
      // Both changed between runs: which change the result answers cannot be told.
      const both = [...setup(), ...[1, 2, 3, 4, 5].flatMap((n) => [...other(n), ...round(n)])];
      expect(detections(feed(makeStepDetector().detector, both))).toEqual([]);
    });

    it("prints added to the agent's own scripts are its scripts' output, not the code's: not counted", () => {
      // A helper of its own that its probe imports (the probe's command does not name it).
      const helper = '/repo/debug_helpers.py';
      const steps = [
        ...setup(),
        ...write(helper, 'def check():\n    return 1\n'),
        ...[1, 2, 3, 4].flatMap((n) => [
          ...edit(
            helper,
            `step_${n} = ${n}`,
            `step_${n} = ${n}\nprint(f"Debug - helper step ${n}: {step_${n}}")`,
          ),
          ...run(unseen(n)),
        ]),
      ];
      expect(detections(feed(makeStepDetector().detector, steps))).toEqual([]);
    });

    it('prints in the file the probe runs itself (its test file) are not expected: it failed before them', () => {
      const test = '/repo/tests/test_loader.py';
      const steps = [1, 2, 3, 4].flatMap((n) => [
        ...edit(test, line(n), withPrint(n)),
        ...run(`FAILED tests/test_loader.py::test_${n} - AssertionError`, `python3 -m pytest ${test}`),
      ]);
      expect(detections(feed(makeStepDetector().detector, steps))).toEqual([]);
    });

    it('an output the tool says it cut proves nothing absent: not counted', () => {
      const steps = [...setup(), ...[1, 2, 3, 4].flatMap((n) => round(n, `${unseen(n)}${CUT}done`))];
      expect(detections(feed(makeStepDetector().detector, steps))).toEqual([]);
    });

    it('a script of its own written whole is a new experiment: the count starts again', () => {
      const steps = [
        ...setup(),
        ...[1, 2].flatMap((n) => round(n)),
        ...write('/repo/reproduce_two.py', 'import django\nfrom loader import load\nprint(load())\n'),
        ...[3, 4].flatMap((n) => round(n)),
      ];
      expect(detections(feed(makeStepDetector().detector, steps))).toEqual([]);
    });
  },
);

describe('the print texts an edit adds and takes out', () => {
  it('reads the constant text of print and logging calls up to the first placeholder', () => {
    expect(
      printedTexts(
        [
          'print(f"Debug - names: {names}")',
          'logger.warning("[autodoc] Returning list for arg %r: %r", arg, result)',
          "console.log('reached the handler', event)",
          'System.out.println("entering resolve");',
          'print(f"\\nContext autoescape: {ctx.autoescape}")',
          'print(x)',
          'print("x: ")',
        ].join('\n'),
      ),
    ).toEqual([
      'Debug - names:',
      '[autodoc] Returning list for arg',
      'reached the handler',
      'entering resolve',
      'Context autoescape:',
    ]);
  });

  it("reads a logger named in capitals when nothing else in the text prints (Java's LOG.info)", () => {
    expect(printedTexts('LOG.info("entering the resolver");')).toEqual(['entering the resolver']);
  });

  it('compares the new text with the old one, edit by edit', () => {
    expect(printEdit({ old_str: 'a = 1', new_str: 'a = 1\nprint("Debug - a is set")' })).toEqual({
      added: ['Debug - a is set'],
      removed: [],
    });
    expect(
      printEdit({ edits: [{ old_string: 'print("Debug - a is set")\na = 1', new_string: 'a = 1' }] }),
    ).toEqual({ added: [], removed: ['Debug - a is set'] });
    expect(printEdit('sed -i "s/a/b/" x.py')).toEqual({ added: [], removed: [] });
  });

  it('with no print expected in the file, an edit that adds none is not read for prints taken out', () => {
    const cleanUp = { old_str: 'print("Debug - a is set")\na = 1', new_str: 'a = 1' };
    expect(printEdit(cleanUp, false)).toEqual({ added: [], removed: [] });
    expect(printEdit(cleanUp)).toEqual({ added: [], removed: ['Debug - a is set'] });
    // An edit that adds one is read whole either way: a print already there is not added.
    const more = {
      old_str: 'print("Debug - a is set")',
      new_str: 'print("Debug - a is set")\nprint("Debug - b is set")',
    };
    expect(printEdit(more, false)).toEqual({ added: ['Debug - b is set'], removed: [] });
  });
});

describe('debug output that never shows, changes typed as command lines', () => {
  const edit = (n: number): Step[] => [
    {
      type: 'action',
      tool: 'str_replace_editor',
      input: {
        command: 'str_replace',
        path: CODE,
        old_str: `names_${n} = collect()`,
        new_str: `names_${n} = collect()\nprint(f"Debug - names in round ${n}: {names_${n}}")`,
      },
    },
    { type: 'observation', tool: 'str_replace_editor', output: `The file ${CODE} has been edited.` },
  ];
  const round = (n: number): Step[] => [...edit(n), ...turn(`python3 ${SCRIPT}`, unseen(n))];

  it('the loop as command lines and edits: nudged at the third run, stopped at the fourth', () => {
    const steps = [1, 2, 3, 4].flatMap(round);
    expect(detections(feed(makeStepDetector().detector, steps)).map((v) => v.action)).toEqual([
      'nudge',
      'stop',
    ]);
  });

  it('a shell line that changes another file (sed -i) starts every count again', () => {
    const steps = [
      ...[1, 2].flatMap(round),
      ...turn(`sed -i 's/clean=False/clean=True/' ${OTHER}`, ''),
      ...[3, 4].flatMap(round),
    ];
    expect(detections(feed(makeStepDetector().detector, steps))).toEqual([]);
  });

  it('a change whose file cannot be told (a package installed) may make the code run: every count starts again', () => {
    const steps = [
      ...[1, 2].flatMap(round),
      ...turn('pip install -e /repo', 'Successfully installed Django'),
      ...[3, 4].flatMap(round),
    ];
    expect(detections(feed(makeStepDetector().detector, steps))).toEqual([]);
  });
});

/** A search of the file the probe writes: what the agent expects its change to put there. */
const searchShapes = {
  openhands: {
    line: (command: string, output: string, failed: boolean): Step[] => [
      { type: 'action', tool: 'execute_bash', input: { command } },
      { type: 'observation', tool: 'execute_bash', output, ...(failed ? { error: true } : {}) },
    ],
  },
  claudeCode: {
    line: (command: string, output: string, failed: boolean): Step[] => [
      { type: 'action', tool: 'Bash', input: { command, description: 'Check the figure' } },
      { type: 'observation', tool: 'Bash', output, ...(failed ? { error: true } : {}) },
    ],
  },
  strings: {
    line: (command: string, output: string, failed: boolean): Step[] =>
      turn(command, output, { error: failed }),
  },
};

describe.each(Object.entries(searchShapes))(
  "a search of the probe's file that finds nothing after each change, inputs as %s",
  (_shape, { line }) => {
    const BACKEND = '/repo/lib/backends/backend_svg.py';
    const change = (n: number): Step[] => [
      {
        type: 'action',
        tool: 'str_replace_editor',
        input: {
          command: 'str_replace',
          path: BACKEND,
          old_str: `gid_${n} = None`,
          new_str: `gid_${n} = artist.get_gid()`,
        },
      },
      { type: 'observation', tool: 'str_replace_editor', output: `The file ${BACKEND} has been edited.` },
    ];
    /** A look at another part of the code: something learned each round (no other rule's repeat). */
    const look = (n: number): Step[] => [
      {
        type: 'action',
        tool: 'str_replace_editor',
        input: { command: 'view', path: `/repo/lib/artist_${n}.py` },
      },
      {
        type: 'observation',
        tool: 'str_replace_editor',
        output: `${100 * n}\tdef set_gid_${n}(self, gid):\n${100 * n + 1}\t    self._gid_${n} = gid`,
      },
    ];
    /** The script writes the figure; the round's search of it finds nothing (grep's exit status 1). */
    const round = (n: number, pattern = 'annotation_1'): Step[] => [
      ...look(n),
      ...change(n),
      ...line(
        `cd /repo && python reproduce.py && grep -A 2 '${pattern}' example.svg`,
        `Saved figure ${n}`,
        true,
      ),
    ];

    it('the id it set never in the figure, change after change: nudged at the third search, stopped at the fourth', () => {
      const steps = [1, 2, 3, 4].flatMap((n) => round(n, n < 3 ? 'My_label' : 'annotation_[12]'));
      const found = detections(feed(makeStepDetector().detector, steps));
      expect(found.map((v) => [v.action, v.loopType])).toEqual([
        ['nudge', 'near_duplicate'],
        ['stop', 'near_duplicate'],
      ]);
      expect(found[0]?.message).toContain(
        '3 searches of `example.svg`, each after a change to the code under test, found nothing',
      );
    });

    it('searched again with nothing changed between: not a miss', () => {
      const again = (n: number): Step[] => [
        ...look(10 + n),
        ...line(`cat /repo/example.svg | grep -m ${n} annotation_1`, '', true),
      ];
      const steps = [...round(1), ...again(1), ...again(2), ...round(2), ...again(3), ...again(4)];
      expect(detections(feed(makeStepDetector().detector, steps))).toEqual([]);
    });

    it('a search that finds something ends the count', () => {
      const shown = line("grep -A 2 'annotation_1' /repo/example.svg", '<g id="annotation_1">', false);
      const steps = [...round(1), ...round(2), ...change(3), ...shown, ...round(4), ...round(5)];
      expect(detections(feed(makeStepDetector().detector, steps))).toEqual([]);
    });

    it('a line that failed otherwise (no such file, the script crashed before the search) is no miss', () => {
      const steps = [1, 2, 3, 4].flatMap((n) => [
        ...change(n),
        ...line(
          'python reproduce.py && grep annotation_1 example.svg',
          n % 2 === 0
            ? 'grep: example.svg: No such file or directory'
            : 'Traceback (most recent call last):\nValueError: bad gid',
          true,
        ),
      ]);
      expect(detections(feed(makeStepDetector().detector, steps))).toEqual([]);
    });
  },
);

describe('the search of one file a command line ends with', () => {
  it('reads grep as the last segment, with the file named or given by cat', () => {
    expect(searchOf("cd /w && python repro.py && grep -A 2 -B 2 'annotation_[12]' /w/example.svg")).toEqual({
      file: 'example.svg',
      pattern: 'annotation_[12]',
    });
    expect(searchOf('cat /w/_build/html/index.html | grep -A 5 "ugly_enum_func"')).toEqual({
      file: 'index.html',
      pattern: 'ugly_enum_func',
    });
    expect(searchOf('grep -n -m 1 def_x src/a.py')).toEqual({ file: 'a.py', pattern: 'def_x' });
  });

  it('leaves out what is not one expectation of one file', () => {
    expect(searchOf('grep -rn annotation lib/')).toBeUndefined();
    expect(searchOf('grep annotation a.svg b.svg')).toBeUndefined();
    expect(searchOf('grep annotation *.svg')).toBeUndefined();
    expect(searchOf('grep -e annotation a.svg')).toBeUndefined();
    expect(searchOf('grep annotation a.svg | head')).toBeUndefined();
    expect(searchOf('python repro.py | grep annotation')).toBeUndefined();
    expect(searchOf('python repro.py')).toBeUndefined();
  });
});
