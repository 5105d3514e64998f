import { describe, expect, it } from 'vitest';
import type { Step } from '../../src/entries/steps.js';
import { detections, feed, makeStepDetector, turn } from './helpers.js';

/** Lines `from`..`from + 4` of a file that holds no `build_where` there: each range shows new code. */
const lines = (from: number): string =>
  Array.from({ length: 5 }, (_, i) => `${from + i}\t    value_${from + i} = compute(${from + i})`).join('\n');

/** The two shapes an agent gives: a command line, or the editor's arguments. */
const shapes = {
  strings: {
    view: (from: number, reason: string, output = lines(from)): Step[] =>
      turn(`sed -n '${from},${from + 99}p' src/query.py`, output, { reason }),
    edit: (): Step[] => turn(`sed -i 's/limit = 1/limit = 2/' src/query.py`, ''),
  },
  objects: {
    view: (from: number, reason: string, output = lines(from)): Step[] => [
      { type: 'message', text: reason },
      {
        type: 'action',
        tool: 'str_replace_editor',
        input: { command: 'view', path: '/repo/src/query.py', view_range: [from, from + 99] },
      },
      { type: 'observation', tool: 'str_replace_editor', output },
    ],
    edit: (): Step[] => [
      {
        type: 'action',
        tool: 'str_replace_editor',
        input: {
          command: 'str_replace',
          path: '/repo/src/query.py',
          old_str: 'limit = 1',
          new_str: 'limit = 2',
        },
      },
      {
        type: 'observation',
        tool: 'str_replace_editor',
        output: 'The file /repo/src/query.py has been edited.',
      },
    ],
  },
};

const LOOKING = 'Let me check the `build_where` method in another range:';

describe.each(Object.entries(shapes))(
  'reads that never show the name sought, inputs as %s',
  (_shape, { view, edit }) => {
    it('guessed ranges of one file hunting for one name: nudged at the third miss, stopped at the fourth', () => {
      const steps = [1000, 500, 800, 900].flatMap((from) => view(from, LOOKING));
      const found = detections(feed(makeStepDetector().detector, steps));
      expect(found.map((v) => [v.action, v.loopType])).toEqual([
        ['nudge', 'near_duplicate'],
        ['stop', 'near_duplicate'],
      ]);
      expect(found[0]?.message).toContain('did not show `build_where`');
      expect(found[0]?.message).toContain('grep -n build_where');
    });

    it('reading a file range after range for what it holds (no one name sought) is exploring, not a loop', () => {
      const steps = [1, 101, 201, 301, 401].flatMap((from) =>
        view(from, `Let's look at the next part of the file.`),
      );
      expect(detections(feed(makeStepDetector().detector, steps))).toEqual([]);
      const many = [1, 101, 201, 301, 401].flatMap((from) =>
        view(from, 'Let me see how `compute` feeds `limit` and `value`:'),
      );
      expect(detections(feed(makeStepDetector().detector, many))).toEqual([]);
    });

    it('a read that shows the name ends the search: the next miss is not the loop again', () => {
      const steps = [
        ...[1000, 500, 800].flatMap((from) => view(from, LOOKING)),
        ...view(1300, LOOKING, `1324\t    def build_where(self, filter_expr):`),
        ...view(600, LOOKING),
      ];
      expect(detections(feed(makeStepDetector().detector, steps)).map((v) => v.action)).toEqual(['nudge']);
    });

    it('a change starts the count again: the search is then for something else', () => {
      const steps = [
        ...[1000, 500].flatMap((from) => view(from, LOOKING)),
        ...edit(),
        ...[800, 900].flatMap((from) => view(from, LOOKING)),
      ];
      expect(detections(feed(makeStepDetector().detector, steps))).toEqual([]);
    });
  },
);

describe('the name a message seeks, read from it when a read follows', () => {
  const sought = (steps: readonly Step[]): string => {
    const { detector } = makeStepDetector();
    feed(detector, steps);
    return (detector.snapshot() as unknown as { history: { searches: { sought: string } } }).history.searches
      .sought;
  };

  it('a snapshot taken after the message holds the name it seeks', () => {
    expect(sought([{ type: 'message', text: 'Let me find the `Query.build_where()` method.' }])).toBe(
      'build_where',
    );
  });

  it('the next message replaces it, and a turn ends it', () => {
    const seek = (name: string): Step => ({ type: 'message', text: `Where is \`${name}\`?` });
    expect(sought([seek('build_where'), seek('make_limit')])).toBe('make_limit');
    expect(sought([seek('build_where'), ...turn('ls', 'a.py')])).toBe('');
  });
});
