import { describe, expect, it } from 'vitest';
import type { Step } from '../../src/entries/steps.js';
import { messageKey } from '../../src/steps/keys/stepKeys.js';
import { feed, makeStepDetector, turn } from './helpers.js';

const say = (text: string): Step => ({ type: 'message', text });

/** The messages and their counts in a detector's snapshot. */
function monologue(steps: readonly Step[]) {
  const { detector } = makeStepDetector();
  feed(detector, steps);
  const { history } = detector.snapshot() as unknown as {
    history: { messages: Array<{ key: string; text: string }>; messageCounts: Array<[string, number]> };
  };
  return { messages: history.messages.map((m) => [m.text, m.key]), counts: history.messageCounts };
}

describe('a message key computed when a second message of its monologue comes', () => {
  it('a snapshot holds the key and the count of a monologue of one message', () => {
    const text = 'Let me look at the failing test first.';
    expect(monologue([say(text)])).toEqual({
      messages: [[text, messageKey(text)]],
      counts: [[messageKey(text), 1]],
    });
  });

  it('counts the first message before the second, in the order they came', () => {
    const [a, b] = ['First I read the file.', 'Then I run the tests 2 times.'];
    expect(monologue([say(a), say(b), say(a)]).counts).toEqual([
      [messageKey(a), 2],
      [messageKey(b), 1],
    ]);
  });

  it('a tool call between ends the monologue: nothing counted, nothing kept', () => {
    const text = 'Let me check the output.';
    expect(monologue([say(text), ...turn('ls', 'a.py'), say(text), ...turn('ls', 'a.py')])).toEqual({
      messages: [],
      counts: [],
    });
  });

  it('a blank message is a rejected reply whatever its digits', () => {
    const { detector } = makeStepDetector({ rejectedThreshold: 2 });
    const verdicts = feed(detector, [say(' 1 \n'), say('\t2')]);
    expect(verdicts[1]).toMatchObject({ action: 'nudge', loopType: 'rejected_turn' });
  });
});
