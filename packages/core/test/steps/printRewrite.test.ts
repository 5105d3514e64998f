import { describe, expect, it } from 'vitest';
import { type Step, StepLoopDetector } from '../../src/entries/steps.js';
import { printWorkOf, rewritesOwnPrints } from '../../src/steps/probes/printRewrite.js';
import { detections, feed, makeStepDetector, restoredEachStep, turn } from './helpers.js';

const FILE = '/workspace/repo/src/limits.py';
const PROBE = 'cd /workspace/repo && python reproduce.py';
/** The probe's output: the agent's debug line shows (the edited code runs), the verdict does not move. */
const OUTPUT = 'DEBUG: limits max_y=1.0\nDEBUG: limits max_y=1.0\nIssue reproduced: ylim is 1.0';

/**
 * The two shapes an agent gives: command strings (a `sed -i` line) or tool-argument objects (an
 * editor's `old_str`/`new_str`). `addPrint` types a debug print into the code under test;
 * `rewrite(old, new)` replaces the text `old` on a line with `new`; `codeLine` says whether the
 * line is code rather than a print.
 */
const shapes = {
  strings: {
    addPrint: (): Step[] => turn(`sed -i '12i\\    print(f"DEBUG: limits max_y={max_y}")' ${FILE}`, ''),
    rewrite: (old: string, replacement: string): Step[] =>
      turn(`sed -i '12s/${old}/${replacement}/' ${FILE}`, ''),
  },
  objects: {
    addPrint: (): Step[] =>
      turn(
        {
          command: 'str_replace',
          path: FILE,
          old_str: '    return max_y',
          new_str: '    print(f"DEBUG: limits max_y={max_y}")\n    return max_y',
        },
        `The file ${FILE} has been edited.\n    12\t    print(f"DEBUG: limits max_y={max_y}")`,
        { tool: 'str_replace_editor' },
      ),
    rewrite: (old: string, replacement: string): Step[] =>
      turn(
        {
          command: 'str_replace',
          path: FILE,
          old_str: `    print(f"${old}{max_y}")`,
          new_str: `    print(f"${replacement}{max_y}")`,
        },
        `The file ${FILE} has been edited.\n    12\t    print(f"${replacement}{max_y}")`,
        { tool: 'str_replace_editor' },
      ),
  },
};

describe.each(Object.entries(shapes))(
  'a rewrite of the agent’s own debug print, inputs as %s',
  (_shape, s) => {
    const run = () => turn(PROBE, OUTPUT);

    it('rewriting only the print it added, the same output after each: no attempt at the fix, no loop', () => {
      const steps = [
        ...s.addPrint(),
        ...run(),
        ...s.rewrite('DEBUG: limits max_y=', 'DEBUG: limits of patch max_y='),
        ...run(),
        ...s.rewrite('DEBUG: limits of patch max_y=', 'DEBUG: limits of the patch max_y='),
        ...run(),
      ];
      expect(detections(feed(makeStepDetector().detector, steps))).toEqual([]);
      expect(detections(restoredEachStep(steps))).toEqual([]);
    });

    it('a snapshot of the build before (no print memory) restores; the changes it knew of were attempts', () => {
      const snapshotAfterFirstRun = (forget: boolean) => {
        const detector = makeStepDetector().detector;
        feed(detector, [...s.addPrint(), ...run()]);
        const state = JSON.parse(JSON.stringify(detector.snapshot()));
        expect(state.history.probes.agentPrints).toEqual(['DEBUG: limits max_y=']);
        if (forget) {
          delete state.history.probes.lastAttempt;
          delete state.history.probes.agentPrints;
        }
        return StepLoopDetector.restore(state);
      };
      // A rewrite of the print, then a change to the code: one round (kept) or two (forgotten).
      const rounds = [
        ...s.rewrite('DEBUG: limits max_y=', 'DEBUG: limits of patch max_y='),
        ...run(),
        ...turn(`sed -i 's/limit = 1/limit = 2/' ${FILE}`, ''),
        ...run(),
      ];
      expect(detections(feed(snapshotAfterFirstRun(false), rounds))).toEqual([]);
      expect(detections(feed(snapshotAfterFirstRun(true), rounds)).map((v) => v.action)).toEqual(['nudge']);
    });

    it('rewriting a print the agent did not type is a change like any other: nudged at the third identical result', () => {
      // The code's own log line, never typed by the agent: changing it may be the fix.
      const steps = [
        ...s.addPrint(),
        ...run(),
        ...s.rewrite('Loading limits from ', 'Loading the limits from '),
        ...run(),
        ...s.rewrite('Loading the limits from ', 'Loading all limits from '),
        ...run(),
      ];
      for (const play of [(x: Step[]) => feed(makeStepDetector().detector, x), restoredEachStep])
        expect(detections(play(steps)).map((v) => v.action)).toEqual(['nudge']);
    });
  },
);

describe('printWorkOf', () => {
  it('reads a sed substitution of one file as a rewrite of its pattern', () => {
    expect(printWorkOf(`sed -i '2445s/DEBUG: _update/DEBUG: {type(p)} _update/' lib/a.py`)).toEqual({
      typed: [],
      rewritten: ['DEBUG: _update'],
    });
    expect(printWorkOf({ command: "sed -i 's|DEBUG: limits|DEBUG: all limits|g' a.py" })).toEqual({
      typed: [],
      rewritten: ['DEBUG: limits'],
    });
  });

  it('a sed line chained with more, a short pattern, or no sed: nothing rewritten', () => {
    expect(printWorkOf("sed -i 's/DEBUG: x/DEBUG: y/' a.py && python t.py").rewritten).toBeUndefined();
    expect(printWorkOf("sed -i 's/x: /y: /' a.py").rewritten).toBeUndefined();
    expect(printWorkOf('cat > t.py << EOF\nprint("checking the limits")\nEOF')).toEqual({
      typed: ['checking the limits'],
    });
  });

  it('reads an editor change as a rewrite only when every line it replaces and writes is a print or a comment', () => {
    const edit = (old: string, replacement: string) =>
      printWorkOf({ command: 'str_replace', path: 'a.py', old_str: old, new_str: replacement });
    expect(edit('print(f"DEBUG: x={x}")', '# DEBUG\nprint(f"DEBUG: x is {x!r}")')).toEqual({
      typed: ['DEBUG: x is'],
      rewritten: ['DEBUG: x='],
    });
    expect(edit('print(f"DEBUG: x={x}")\nx = 1', 'print(f"DEBUG: x={x}")\nx = 2').rewritten).toBeUndefined();
    expect(edit('x = 1', 'x = 2')).toEqual({ typed: [] });
    // Claude Code's MultiEdit: every part must be one.
    const parts = (second: string) =>
      printWorkOf({
        edits: [
          { old_string: 'print("DEBUG: first value")', new_string: 'print("DEBUG: 1st value")' },
          { old_string: second, new_string: 'print("DEBUG: 2nd value")' },
        ],
      });
    expect(parts('print("DEBUG: second value")').rewritten).toEqual([
      'DEBUG: first value',
      'DEBUG: second value',
    ]);
    expect(parts('value = second()').rewritten).toBeUndefined();
  });

  it('rewritesOwnPrints: every rewritten text inside a print the agent typed', () => {
    expect(rewritesOwnPrints(['DEBUG: _update'], ['DEBUG: _update_patch_limits max_y='])).toBe(true);
    expect(rewritesOwnPrints(['Loading limits'], ['DEBUG: _update_patch_limits'])).toBe(false);
    expect(rewritesOwnPrints([], ['DEBUG: x='])).toBe(false);
    expect(rewritesOwnPrints(undefined, ['DEBUG: x='])).toBe(false);
  });
});
