import { describe, expect, it } from 'vitest';
import type { Step } from '../../src/entries/steps.js';
import { keyLines, maskTyped, typedWords } from '../../src/steps/probes/probeKey.js';
import { probeIdentity } from '../../src/steps/probes/probePaths.js';
import { detections, feed, makeStepDetector, turn } from './helpers.js';

const SCRIPT = '/workspace/repro.py';

/** The two shapes an agent gives: command strings, or tool-argument objects (`{ command }`). */
const shapes = {
  strings: {
    create: (body: string): Step[] => turn(`cat > ${SCRIPT} << 'EOF'\n${body}\nEOF`, ''),
    editScript: (from: string, to: string): Step[] => turn(`sed -i 's/${from}/${to}/' ${SCRIPT}`, ''),
    edit: (n: number, file = 'src/parse.py'): Step[] =>
      turn(`sed -i 's/limit = ${n}/limit = ${n + 1}/' ${file}`, ''),
    read: (file: string, content: string): Step[] => turn(`cat ${file}`, content),
    run: (command: string, output: string, error = false): Step[] => turn(command, output, { error }),
    debugPrint: (label: string): Step[] => turn(`sed -i '12i\\    print("${label}")' src/parse.py`, ''),
  },
  objects: {
    create: (body: string): Step[] => [
      {
        type: 'action',
        tool: 'str_replace_editor',
        input: { command: 'create', path: SCRIPT, file_text: body },
      },
      { type: 'observation', output: `File created successfully at: ${SCRIPT}` },
    ],
    editScript: (from: string, to: string): Step[] => [
      {
        type: 'action',
        tool: 'str_replace_editor',
        input: { command: 'str_replace', path: SCRIPT, old_str: from, new_str: to },
      },
      { type: 'observation', output: `The file ${SCRIPT} has been edited.\n     3\t${to}` },
    ],
    edit: (n: number, file = '/workspace/repo/src/parse.py'): Step[] => [
      {
        type: 'action',
        tool: 'str_replace_editor',
        input: { command: 'str_replace', path: file, old_str: `limit = ${n}`, new_str: `limit = ${n + 1}` },
      },
      { type: 'observation', output: `The file ${file} has been edited.\n    12\tlimit = ${n + 1}` },
    ],
    read: (file: string, content: string): Step[] => [
      { type: 'action', tool: 'str_replace_editor', input: { command: 'view', path: file } },
      { type: 'observation', output: content },
    ],
    run: (command: string, output: string, error = false): Step[] => [
      { type: 'action', tool: 'execute_bash', input: { command } },
      { type: 'observation', output, ...(error ? { error: true } : {}) },
    ],
    debugPrint: (label: string): Step[] => {
      const file = '/workspace/repo/src/parse.py';
      return [
        {
          type: 'action',
          tool: 'str_replace_editor',
          input: { command: 'insert', path: file, insert_line: 12, new_str: `    print("${label}")` },
        },
        { type: 'observation', output: `The file ${file} has been edited.\n    13\t    print("${label}")` },
      ];
    },
  },
};

const traceback = (detail: string, error = 'OperationalError: no such table: app_item') =>
  `${detail}\nTraceback (most recent call last):\n  File "${SCRIPT}", line 9, in <module>\n${error}`;

describe.each(Object.entries(shapes))('probe results by their key line, inputs as %s', (_shape, s) => {
  /** A first look at the file the rounds edit: the first change is a hypothesis, not a guess. */
  const look = (): Step[] => s.read('/workspace/repo/src/parse.py', 'def parse(rows):\n    limit = 0');

  it('debug prints the agent adds to its own script do not make the same error new: a loop', () => {
    const steps = [
      ...s.create('print("start")'),
      ...s.run(`python ${SCRIPT}`, traceback('start'), true),
      ...['alpha', 'beta', 'gamma', 'delta'].flatMap((label, i) => [
        ...s.edit(i),
        ...s.editScript('start', `start ${label}`),
        ...s.run(`cd /workspace && python repro.py`, traceback(`start ${label}`), true),
      ]),
    ];
    const found = detections(feed(makeStepDetector().detector, steps));
    expect(found[0]).toMatchObject({ action: 'nudge', loopType: 'outcome_stagnation' });
  });

  it('edits only to its own script, with the same key line each run, are a loop (not new hypotheses)', () => {
    const steps = [
      ...s.create('setup()'),
      ...s.run(`python ${SCRIPT}`, traceback('x'), true),
      ...[1, 2, 3, 4].flatMap((i) => [
        ...s.editScript(`setup${i - 1}`, `setup${i}`),
        ...s.run(`python ${SCRIPT}`, traceback(`x${i}`), true),
      ]),
    ];
    expect(detections(feed(makeStepDetector().detector, steps)).map((v) => v.action)).toContain('nudge');
  });

  it('a result that comes back (A, B, A, B, ...) is not news', () => {
    const results = ['got 1', 'got 2', 'got 1', 'got 2', 'got 1', 'got 2', 'got 1'];
    const steps = [
      ...s.run('python reproduce.py', results[0] as string),
      ...results.slice(1).flatMap((r, i) => [...s.edit(i), ...s.run('python reproduce.py', r)]),
    ];
    expect(detections(feed(makeStepDetector().detector, steps))[0]?.loopType).toBe('outcome_stagnation');
  });

  it('new code read between every run, edits to one file that use none of it, the same result: stale rounds, a loop', () => {
    const steps = [
      ...s.run('python reproduce.py', 'value: None'),
      ...[0, 1, 2, 3].flatMap((i) => [
        ...s.read(`/workspace/repo/lib/part${i}.py`, `def part${i}(): return ${i} # never seen ${i}`),
        ...s.edit(i),
        ...s.run('python reproduce.py', 'value: None'),
      ]),
    ];
    const found = detections(feed(makeStepDetector().detector, steps));
    expect(found.map((v) => v.action)).toEqual(['nudge', 'stop']);
  });

  it('after the nudge, a read of something new is not progress; only a new probe result is', () => {
    const base = [
      ...s.run('python reproduce.py', 'value: None'),
      ...look(),
      ...[0, 1, 2].flatMap((i) => [...s.edit(i), ...s.run('python reproduce.py', 'value: None')]),
    ];
    const nudged = detections(feed(makeStepDetector().detector, base));
    expect(nudged.map((v) => v.action)).toEqual(['nudge']);
    const after = [
      ...s.read('/workspace/repo/other.py', 'def other(): pass # new'),
      ...s.edit(5),
      ...s.run('python reproduce.py', 'value: None'),
    ];
    expect(detections(feed(makeStepDetector().detector, [...base, ...after])).map((v) => v.action)).toEqual([
      'nudge',
      'stop',
    ]);
    const moved = [...s.edit(5), ...s.run('python reproduce.py', 'value: 7')];
    expect(detections(feed(makeStepDetector().detector, [...base, ...moved])).map((v) => v.action)).toEqual([
      'nudge',
    ]);
  });

  it('after the nudge, a result that differs from the previous run only in a random id is not progress', () => {
    const ids = ['237e4432-97f3-48fb-90ff-a407f14916b7', '076be3a7-4a48-41b0-b44e-11ef55094950'];
    const output = (i: number) =>
      `Created s0 with id: ${ids[i % 2]}\nError saving object: UNIQUE constraint failed`;
    const steps = [
      ...s.run('python reproduce.py', output(0)),
      ...look(),
      ...[1, 2, 3, 4, 5].flatMap((i) => [...s.edit(i), ...s.run('python reproduce.py', output(i))]),
    ];
    expect(detections(feed(makeStepDetector().detector, steps)).map((v) => v.action)).toEqual([
      'nudge',
      'stop',
    ]);
  });

  it('a read run again after each build that shows something else is the result: the build log that never changes is not', () => {
    const grep = (html: string) => s.run('grep -A 3 Parameters _build/index.html', html);
    const round = (i: number, html: string) => [
      ...s.edit(i),
      ...s.run('make html', 'build succeeded.'),
      ...grep(html),
    ];
    const same = [...s.run('make html', 'build succeeded.'), ...grep('<dd>dict(str, ))</dd>')];
    const stuck = [...same, ...[0, 1, 2, 3].flatMap((i) => round(i, '<dd>dict(str, ))</dd>'))];
    expect(detections(feed(makeStepDetector().detector, stuck)).map((v) => v.action)).toEqual([
      'nudge',
      'stop',
    ]);
    const pages = [
      '<dd>dict(str))</dd>',
      '<dd><ul>dict(str)</ul></dd>',
      '<dd><ul>dict</ul></dd>',
      '<dd>dict</dd>',
    ];
    const moving = [...same, ...pages.flatMap((html, i) => round(i, html))];
    expect(detections(feed(makeStepDetector().detector, moving))).toEqual([]);
  });

  it('a set printed in another order is the same result: the order of a set is noise', () => {
    // Python prints a set in its hash order, which changes from one process to the next.
    const orders = ['{y, x}', '{x, y}'];
    const steps = (sets: string[]) => [
      ...s.run('python reproduce.py', `AssertionError: '${sets[0]}' != "{Sym('y'), Sym('x')}"`, true),
      ...look(),
      ...[1, 2, 3, 4].flatMap((i) => [
        ...s.edit(i),
        ...s.run(
          'python reproduce.py',
          `AssertionError: '${sets[i % sets.length]}' != "{Sym('y'), Sym('x')}"`,
          true,
        ),
      ]),
    ];
    expect(detections(feed(makeStepDetector().detector, steps(orders))).map((v) => v.action)).toEqual([
      'nudge',
      'stop',
    ]);
    // The set itself changes each round: progress.
    const moving = steps(['{x}', '{x, y}', '{x, y, z}', '{y}', '{z}']);
    expect(detections(feed(makeStepDetector().detector, moving))).toEqual([]);
  });

  it('a stack overflow is one result wherever the limit struck: its tail and the errors while unwinding vary', () => {
    const overflow = (i: number) =>
      [
        'Traceback (most recent call last):',
        ...(i % 2 === 0
          ? []
          : [
              "KeyError: 'finite'",
              '',
              'During handling of the above exception, another exception occurred:',
              '',
            ]),
        `  File "/w/repo/pkg/core.py", line ${40 + i}, in step${i}`,
        `RecursionError: maximum recursion depth exceeded${i % 3 === 1 ? ' while calling a Python object' : ''}`,
      ].join('\n');
    const steps = [
      ...s.run('python reproduce.py', overflow(0), true),
      ...[1, 2, 3, 4].flatMap((i) => [...s.edit(i), ...s.run('python reproduce.py', overflow(i), true)]),
    ];
    const actions = detections(feed(makeStepDetector().detector, steps)).map((v) => v.action);
    expect(actions[0]).toBe('nudge');
    expect(actions).toContain('stop');
    // The recursion ends and another error shows after the same rounds: progress, never a stop.
    const fixed = [
      ...steps.slice(0, 6),
      ...s.edit(3),
      ...s.run('python reproduce.py', 'ValueError: bad row', true),
      ...s.edit(4),
      ...s.run('python reproduce.py', 'ValueError: bad row in col 2', true),
    ];
    expect(detections(feed(makeStepDetector().detector, fixed))).toEqual([]);
  });

  it('the verdict ceiling: the same error after every change, whatever else the run printed, is a loop', () => {
    // A script that catches the error and prints it next to values that differ each round.
    const output = (i: number) => `checked ${i * 7} rows\nCaught: ValueError: bad input`;
    const steps = [
      ...s.run('python reproduce.py', output(0)),
      ...[1, 2, 3, 4, 5].flatMap((i) => [
        ...s.edit(i, `/workspace/repo/src/m${i}.py`),
        ...s.run('python reproduce.py', output(i)),
      ]),
    ];
    const found = detections(feed(makeStepDetector().detector, steps));
    expect(found.map((v) => v.action)).toEqual(['nudge', 'stop']);
    expect(found[0]?.message).toContain('ended with the same error');
    // One round fewer than the ceiling is not yet a loop.
    expect(detections(feed(makeStepDetector().detector, steps.slice(0, -8)))).toEqual([]);
  });

  it('a different file of the code under test changed each round, nothing learned since the same result: guesses, a loop', () => {
    const steps = [
      ...s.run('python reproduce.py', 'value: None'),
      ...[1, 2, 3].flatMap((i) => [
        ...s.edit(i, `/workspace/repo/src/m${i}.py`),
        ...s.run('python reproduce.py', 'value: None'),
      ]),
    ];
    expect(detections(feed(makeStepDetector().detector, steps)).map((v) => v.action)).toEqual([
      'nudge',
      'stop',
    ]);
  });

  describe('what stays progress', () => {
    it('new code read and then acted on (the file read is the file changed next)', () => {
      const steps = [
        ...s.run('python reproduce.py', 'value: None'),
        ...[1, 2, 3, 4].flatMap((i) => [
          ...s.read(`/workspace/repo/src/m${i}.py`, `def m${i}(): return None # ${i}`),
          ...s.edit(i, `/workspace/repo/src/m${i}.py`),
          ...s.run('python reproduce.py', 'value: None'),
        ]),
      ];
      expect(detections(feed(makeStepDetector().detector, steps))).toEqual([]);
    });

    it('debug output the agent added to the code under test actually appearing', () => {
      const steps = [
        ...s.run('python reproduce.py', 'value: None'),
        ...[1, 2, 3, 4].flatMap((i) => [
          ...s.edit(i),
          ...s.run('python reproduce.py', `DEBUG step ${i} reached\nvalue: None`),
        ]),
      ];
      expect(detections(feed(makeStepDetector().detector, steps))).toEqual([]);
    });

    it('debug output the agent added to the code under test appearing, around the same error', () => {
      const labels = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta'];
      const steps = [
        ...s.run('python reproduce.py', 'ValueError: bad input', true),
        ...labels.flatMap((label) => [
          ...s.debugPrint(`reached_${label}`),
          ...s.run('python reproduce.py', `reached_${label}\nValueError: bad input`, true),
        ]),
      ];
      expect(detections(feed(makeStepDetector().detector, steps))).toEqual([]);
    });

    it('a new error each round', () => {
      const errors = ['KeyError: a', 'TypeError: b', 'ValueError: c', 'IndexError: d', 'NameError: e'];
      const steps = [
        ...s.run('python reproduce.py', errors[0] as string, true),
        ...errors.slice(1).flatMap((e, i) => [...s.edit(i), ...s.run('python reproduce.py', e, true)]),
      ];
      expect(detections(feed(makeStepDetector().detector, steps))).toEqual([]);
    });

    it('a count that moves', () => {
      const steps = [
        ...s.run('pytest tests -q', '9 failed, 1 passed', true),
        ...[8, 7, 6, 5].flatMap((n, i) => [
          ...s.edit(i),
          ...s.run('pytest tests -q', `${n} failed, ${10 - n} passed`, true),
        ]),
      ];
      expect(detections(feed(makeStepDetector().detector, steps))).toEqual([]);
    });
  });
});

describe('key lines and probe identity', () => {
  it('the key line is the final error, noise and temp names masked; frames and debug output are not key', () => {
    const a = keyLines(
      `dbg 1\nTraceback (most recent call last):\n  File "/tmp/tmpa81kq/x.py", line 3\nKeyError: 'k' at 0x7f3a`,
    );
    const b = keyLines(
      `dbg 2 other\nTraceback (most recent call last):\n  File "/tmp/tmpz9/y.py", line 40\nKeyError: 'k' at 0x7f99`,
    );
    expect(a).toBe(b);
    expect(keyLines('3 failed, 1 passed')).not.toBe(keyLines('2 failed, 2 passed'));
    expect(keyLines('all good')).toBe('');
  });

  it('words the agent typed are masked, others kept', () => {
    const typed = new Set(typedWords('db_table = "test_transactions"'));
    expect(maskTyped('no such table: test_transactions', typed)).toBe(
      maskTyped('no such table: test_transactions_x', new Set()).replace('test_transactions_x', '~'),
    );
  });

  it('python /w/x.py and cd /w && python x.py are one probe', () => {
    expect(probeIdentity('python /workspace/repo/x.py')).toBe(probeIdentity('python x.py'));
    expect(probeIdentity('pytest tests/test_a.py -x')).not.toBe(probeIdentity('pytest tests/test_b.py -x'));
  });
});
