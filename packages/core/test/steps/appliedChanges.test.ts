import { describe, expect, it } from 'vitest';
import { detections, feed, makeStepDetector, restoredEachStep, turn } from './helpers.js';

const FILE = '/work/app/render.py';
/** The file as a first view shows it: 40 numbered lines, each line seen from then on. */
const LINES = Array.from({ length: 40 }, (_, i) => `${String(i + 1).padStart(6)}\tstatement_${i + 1}()`);

/** The lines `from..from+3` of the view: what an editor shows around a change, all seen before. */
const around = (from: number) => LINES.slice(from, from + 4).join('\n');

/** Each input shape's view of the file, change of the file (the `i`-th clean-up), and different look at it. */
const shapes = {
  'argument objects': {
    view: () => turn({ command: 'view', path: FILE }, LINES.join('\n'), { tool: 'str_replace_editor' }),
    change: (i: number) =>
      turn({ command: 'str_replace', path: FILE, old_str: `leftover_${i}()\n`, new_str: '' }, around(i * 3), {
        tool: 'str_replace_editor',
      }),
    look: (i: number) =>
      turn({ command: 'view', path: FILE, view_range: [i * 3 + 1, i * 3 + 4] }, around(i * 3), {
        tool: 'str_replace_editor',
      }),
  },
  'command strings': {
    view: () => turn(`cat -n ${FILE}`, LINES.join('\n')),
    change: (i: number) =>
      turn(`sed -i 's#leftover_${i}()##' ${FILE} && sed -n '${i * 3 + 1},+3p' ${FILE}`, around(i * 3)),
    look: (i: number) => turn(`sed -n '${i * 3 + 1},+3p' ${FILE}`, around(i * 3)),
  },
};

describe.each(Object.entries(shapes))(
  'a change that went through is an effect, not a stale look, inputs as %s',
  (_shape, s) => {
    const changes = [s.view(), ...Array.from({ length: 10 }, (_, i) => s.change(i + 1))].flat();
    const looks = [s.view(), ...Array.from({ length: 10 }, (_, i) => s.look(i + 1))].flat();

    it('ten different clean-up changes whose replies show lines seen before are not stagnation', () => {
      expect(detections(feed(makeStepDetector().detector, changes))).toEqual([]);
      expect(detections(restoredEachStep(changes))).toEqual([]);
    });

    it('ten different looks that show only lines seen before still are (nudge, then stop)', () => {
      for (const verdicts of [feed(makeStepDetector().detector, looks), restoredEachStep(looks)]) {
        const found = detections(verdicts).map((v) => `${v.action}/${v.loopType}`);
        expect(found.slice(0, 2)).toEqual(['nudge/stagnation', 'stop/stagnation']);
      }
    });
  },
);
