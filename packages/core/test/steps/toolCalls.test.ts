import { describe, expect, it } from 'vitest';
import { StepLoopDetector } from '../../src/entries/steps.js';
import { detections, feed, makeRecordingDetector, makeStepDetector, turn } from './helpers.js';

// What a person reads counts tool calls (issue 35): a verdict says at which call it fell, and its
// message names calls, not steps (which count actions, results and messages apart).

const failing = (times: number) =>
  Array.from({ length: times }, () =>
    turn({ command: 'cat missing.txt' }, 'cat: missing.txt: No such file or directory', { error: true }),
  ).flat();

describe('verdicts speak in tool calls', () => {
  it('the nudge after three calls falls at call 3 and says "since call 1"; the stop at call 4', () => {
    const found = detections(feed(makeStepDetector().detector, failing(4)));
    expect(found.map((verdict) => [verdict.action, verdict.toolCall])).toEqual([
      ['nudge', 3],
      ['stop', 4],
    ]);
    const [nudge, stop] = found;
    expect(nudge?.message).toContain('since call 1.');
    expect(nudge?.message).toMatch(/^- call 3: `cat missing.txt`/m);
    expect(stop?.message).toMatch(/^- call 4: /m);
    for (const message of [nudge?.message, stop?.message]) expect(message).not.toMatch(/\bsteps?\b/);
  });

  it('the text before each call does not move the call numbers', () => {
    const steps = Array.from({ length: 4 }, (_, i) =>
      turn({ command: 'cat missing.txt' }, 'cat: missing.txt: No such file or directory', {
        error: true,
        reason: `Attempt ${i}: let me read it.`,
      }),
    ).flat();
    const found = detections(feed(makeStepDetector().detector, steps));
    expect(found.map((verdict) => verdict.toolCall)).toEqual([3, 4]);
    expect(found[0]?.message).toContain('since call 1.');
  });

  it('a message loop is dated by the calls before it', () => {
    const steps = [
      ...turn({ command: 'ls' }, 'a.txt'),
      ...Array.from({ length: 6 }, () => ({ type: 'message' as const, text: 'I will now fix the parser.' })),
    ];
    const found = detections(feed(makeStepDetector().detector, steps));
    expect(found[0]?.loopType).toBe('repeated_message');
    expect(found[0]?.toolCall).toBe(1);
    expect(found[0]?.message).toContain('since the reply after call 1.');
  });

  it('a detector restored from its snapshot goes on counting calls', () => {
    const first = makeStepDetector().detector;
    feed(first, failing(2));
    const restored = StepLoopDetector.restore(JSON.parse(JSON.stringify(first.snapshot())));
    const found = detections(feed(restored, failing(2)));
    expect(found.map((verdict) => [verdict.action, verdict.toolCall])).toEqual([
      ['nudge', 3],
      ['stop', 4],
    ]);
    expect(found[0]?.message).toContain('since call 1.');
  });

  it('a call it never observed is numbered among the calls, not judged, across a restore (countUnobservedCall)', () => {
    const first = makeStepDetector().detector;
    feed(first, failing(1));
    first.countUnobservedCall();
    const restored = StepLoopDetector.restore(JSON.parse(JSON.stringify(first.snapshot())));
    const found = detections(feed(restored, failing(3)));
    expect(found.map((verdict) => [verdict.action, verdict.toolCall])).toEqual([
      ['nudge', 4],
      ['stop', 5],
    ]);
    expect(found[0]?.evidence.map((evidence) => evidence.call)).toEqual([1, 3, 4]);
    expect(found[0]?.message).toContain('since call 1.');
    expect(found[0]?.message).toMatch(/^- call 4: `cat missing.txt`/m);
    expect(found[1]?.message).toMatch(/^- call 5: /m);
  });

  it('the loop_nudge and loop_stop entries carry the tool call in their metadata', () => {
    const { detector, stateMachine } = makeRecordingDetector();
    feed(detector, failing(4));
    const entries = stateMachine.listContextEntries({}).reverse(); // newest first
    expect(entries.map((entry) => [entry.topic, entry.metadata?.toolCall])).toEqual([
      ['loop_nudge', 3],
      ['loop_stop', 4],
    ]);
  });
});
