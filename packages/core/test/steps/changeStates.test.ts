import { describe, expect, it } from 'vitest';
import { detections, feed, makeStepDetector, restoredEachStep, turn } from './helpers.js';

const FILE = '/repo/build/pom.xml';
/** The file's own lines and a block the agent places in it: every reply shows only these lines. */
const BODY = Array.from({ length: 10 }, (_, i) => `  <property name="p${String.fromCharCode(97 + i)}"/>`);
const BLOCK = ['  <build>', '    <plugins/>', '  </build>'];
/** An editor's reply: the file numbered as SWE-agent shows it after an edit. */
const reply = (lines: readonly string[]) =>
  [`[File: ${FILE} (${lines.length} lines total)]`, ...lines.map((line, i) => `${i + 1}:${line}`)].join('\n');
/** The file with the block placed after line `at` of the body. */
const placed = (at: number) => [...BODY.slice(0, at), ...BLOCK, ...BODY.slice(at)];
/** The file with its whole body written again on top of it (doubled), and as it was. */
const doubled = [...BODY, ...BLOCK, ...BODY, ...BLOCK];
const single = [...BODY, ...BLOCK];

/** Each input shape's view of the file and its edit of lines `from..to` with `text`. */
const shapes = {
  'command strings': {
    view: () => turn(`open ${FILE}`, reply(single), { tool: 'open' }),
    edit: (from: number, to: number, text: readonly string[], shown: readonly string[]) =>
      turn(`edit ${from}:${to}\n${text.join('\n')}\nend_of_edit`, reply(shown), { tool: 'edit' }),
  },
  'argument objects': {
    view: () => turn({ command: 'view', path: FILE }, reply(single), { tool: 'str_replace_editor' }),
    edit: (from: number, to: number, text: readonly string[], shown: readonly string[]) =>
      turn(
        { command: 'edit', path: FILE, start_line: from, end_line: to, new_str: text.join('\n') },
        reply(shown),
        { tool: 'str_replace_editor' },
      ),
  },
};

const found = (verdicts: ReturnType<typeof restoredEachStep>) =>
  detections(verdicts).map((v) => `${v.action}/${v.loopType}`);

describe.each(Object.entries(shapes))(
  'near-duplicate changes judged by where they left the work, inputs as %s',
  (_shape, s) => {
    // One block placed at another range each time: every reply shows the same lines, arranged anew.
    const moved = [
      s.view(),
      ...[2, 4, 6, 8, 9].map((at, i) => s.edit(at + 1, at + 1 + (i % 2), BLOCK, placed(at))),
    ].flat();
    // The file written again on top of itself, then restored, three times at ranges that vary a little:
    // the work comes back where it was.
    const cycled = [
      s.view(),
      ...[1, 2, 3].flatMap((i) => [s.edit(1, i, single, doubled), s.edit(1, 25 + i, single, single)]),
    ].flat();

    it('one block placed at another range each time is the work moving, not a retry', () => {
      expect(found(feed(makeStepDetector().detector, moved))).toEqual([]);
      expect(found(restoredEachStep(moved))).toEqual([]);
    });

    it('rewrites in other words are judged as before, wherever they leave the work (nudge)', () => {
      // The block rewritten at one place, a word changed each time; each reply arranges the same lines anew.
      const rewritten = [
        s.view(),
        ...['plugins', 'plugin', 'extensions', 'executions'].map((word, i) =>
          s.edit(3, 5, ['  <build>', `    ${word} = on`, '  </build>'], placed(2 * i + 1)),
        ),
      ].flat();
      expect(found(feed(makeStepDetector().detector, rewritten))[0]).toBe('nudge/near_duplicate');
      expect(found(restoredEachStep(rewritten))[0]).toBe('nudge/near_duplicate');
    });

    it('near-duplicate changes that bring the work back where it was are retries (nudge, then stop)', () => {
      for (const verdicts of [feed(makeStepDetector().detector, cycled), restoredEachStep(cycled)]) {
        const loops = found(verdicts);
        expect(loops.slice(0, 2)).toEqual(['nudge/near_duplicate', 'stop/near_duplicate']);
      }
    });
  },
);
