/**
 * Gemini CLI 0.61.0's own loop-detection suite (`LoopDetectionService`, its
 * `packages/core/src/services/loopDetectionService.test.ts`), each case re-expressed in loopguard's
 * step model. Written from the published behaviour: the inputs and the outcome each case expects,
 * not the peer's code.
 *
 * From the peer's events to steps:
 * - A tool-call request (name and arguments) is an `action` step, `tool` = the name, `input` = the
 *   arguments. The peer sees requests only, never their results, so no observation follows.
 * - Content events of one model turn are the pieces of one streaming message: each goes to
 *   `observePartial` as it arrives, and the joined text is observed as one `message` step when the
 *   turn's text ends (at the next tool call, thought or the end of the case). The verdict of that
 *   message step counts at the last content event it holds.
 * - A thought event is a `message` step of reasoning. `reset` of the service is a fresh detector;
 *   disabling it for the session is `setEnabled(false)`, disabling it in the config is
 *   `enabled: false`. An event of a type the service ignores is no step at all (loopguard rejects it).
 *
 * From the peer's verdicts to ours:
 * - The peer reports a loop at event N: loopguard catches it when it nudged or stopped at an event
 *   up to N. The peer would end the turn there; a nudge already tells the agent, and an earlier
 *   detection of the same repetition is an earlier catch, not a false alarm.
 * - The peer's second strike (a loop reported again after recovery) is a stop: loopguard must stop
 *   at that event.
 * - The peer reports no loop anywhere in a case (a plain negative): loopguard must stay quiet,
 *   neither nudge nor stop. The peer would have said nothing to the agent there.
 * - After detection is switched off, every verdict must be `continue`.
 *
 * Left out: the peer's LLM checks (`turnStarted`: when it asks a model, with which prompt, how it
 * weighs the model's confidence). They test calls to a language model, which loopguard does not make.
 */
import { describe, expect, it } from 'vitest';
import {
  StepLoopDetector,
  type StepLoopDetectorOptions,
  type StepVerdict,
} from '../../../src/entries/steps.js';
import { InvalidInputError } from '../../../src/index.js';
import { makeStepDetector } from '../helpers.js';
import {
  expectCaughtBy,
  expectQuiet,
  expectStopAt,
  firstDetection,
  formatTrace,
  type PeerTrace,
} from './peerTrace.js';

/** The peer's defaults: a tool call repeated 5 times, a content chunk of 50 characters 10 times. */
const TOOL_REPEATS = 5;
const CONTENT_REPEATS = 10;
const CHUNK = 50;

type GeminiEvent =
  | { kind: 'tool'; name: string; args: Record<string, unknown> }
  | { kind: 'content'; text: string }
  | { kind: 'thought' };

const tool = (name: string, args: Record<string, unknown>): GeminiEvent => ({ kind: 'tool', name, args });
const content = (text: string): GeminiEvent => ({ kind: 'content', text });
const thought: GeminiEvent = { kind: 'thought' };
const times = (count: number, make: (index: number) => GeminiEvent): GeminiEvent[] =>
  Array.from({ length: count }, (_, index) => make(index));

/** A sentence carrying `id`, repeated and cut to `length` characters: the peer's repeated chunk. */
function sentenceChunk(id: number, length: number): string {
  return `This is a unique sentence, id=${id}. `.repeat(Math.ceil(length / 20)).slice(0, length);
}

/** Letters and digits from a fixed seed: the peer's random filler, made repeatable. */
function noise(seed: number) {
  let state = seed;
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return (length: number) => {
    let text = '';
    for (let i = 0; i < length; i++) {
      state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
      text += alphabet[state % alphabet.length];
    }
    return text;
  };
}

function label(event: GeminiEvent): string {
  if (event.kind === 'tool') return `tool ${event.name} ${JSON.stringify(event.args)}`;
  if (event.kind === 'thought') return 'thought';
  return `content ${JSON.stringify(event.text.length > 40 ? `${event.text.slice(0, 40)}…` : event.text)}`;
}

/** One Gemini turn sequence fed to one detector, keeping loopguard's answer to each event. */
class GeminiRun {
  readonly trace: PeerTrace = [];
  readonly detector: StepLoopDetector;
  private text: string | null = null;
  private textEvent = -1;

  constructor(options: StepLoopDetectorOptions = {}) {
    this.detector = makeStepDetector(options).detector;
  }

  feed(events: readonly GeminiEvent[]): this {
    for (const event of events) {
      if (event.kind === 'content') {
        this.text = (this.text ?? '') + event.text;
        this.textEvent = this.trace.length;
        this.trace.push({ label: label(event), verdicts: [this.detector.observePartial(event.text)] });
        continue;
      }
      this.endText();
      const verdict =
        event.kind === 'tool'
          ? this.detector.observe({ type: 'action', tool: event.name, input: event.args })
          : this.detector.observe({ type: 'message', text: 'Thinking about which call to make next.' });
      this.trace.push({ label: label(event), verdicts: [verdict] });
    }
    return this;
  }

  /** Ends the turn: the streamed text, if any, is observed as one message. */
  end(): PeerTrace {
    this.endText();
    return this.trace;
  }

  private endText(): void {
    if (this.text === null) return;
    const verdict: StepVerdict = this.detector.observe({ type: 'message', text: this.text });
    this.trace[this.textEvent]?.verdicts.push(verdict);
    this.text = null;
  }
}

const run = (events: readonly GeminiEvent[], options?: StepLoopDetectorOptions) =>
  new GeminiRun(options).feed(events).end();

const sameCall = () => tool('testTool', { param: 'value' });
const readFile = (name: string) => tool('read_file', { file_path: `loop_${name}.txt` });

describe('Gemini CLI 0.61.0 suite: tool-call loops', () => {
  it('four identical calls, one short of its threshold, are no loop', () => {
    expectQuiet(run(times(TOOL_REPEATS - 1, sameCall)));
  });

  it('the fifth identical call is a loop', () => {
    expectCaughtBy(run(times(TOOL_REPEATS, sameCall)), TOOL_REPEATS);
  });

  it('a sixth identical call is still a loop', () => {
    expectCaughtBy(run(times(TOOL_REPEATS + 1, sameCall)), TOOL_REPEATS + 1);
  });

  it('three different calls taken in turn three times are no loop', () => {
    const calls = [
      tool('testTool', { param: 'value1' }),
      tool('testTool', { param: 'value2' }),
      tool('anotherTool', { param: 'value1' }),
    ];
    expectQuiet(run(times(9, (i) => calls[i % 3] as GeminiEvent)));
  });

  it('a thought between identical calls does not restart their count', () => {
    const events = [...times(TOOL_REPEATS - 1, sameCall), thought, sameCall()];
    expectCaughtBy(run(events), events.length);
  });

  it('switched off for the session, five identical calls are no loop', () => {
    const gemini = new GeminiRun();
    gemini.detector.setEnabled(false);
    expectQuiet(gemini.feed(times(TOOL_REPEATS, sameCall)).end());
  });

  it('switched off after a detection, the next identical call is not reported', () => {
    const gemini = new GeminiRun().feed(times(TOOL_REPEATS + 1, sameCall));
    expectCaughtBy(gemini.trace, TOOL_REPEATS + 1);
    gemini.detector.setEnabled(false);
    const after = gemini.feed([sameCall()]).end();
    expect(
      after.at(-1)?.verdicts.map((verdict) => verdict.action),
      formatTrace(after),
    ).toEqual(['continue']);
  });

  it('switched off in the configuration, seven identical calls are no loop', () => {
    expectQuiet(run(times(TOOL_REPEATS + 2, sameCall), { enabled: false }));
  });

  it('two reads alternating for 15 calls are a loop', () => {
    expectCaughtBy(run(times(15, (i) => readFile(i % 2 === 0 ? 'a' : 'b'))), 15);
  });

  it('a cycle of three reads over 20 calls is a loop', () => {
    expectCaughtBy(run(times(20, (i) => readFile('abc'[i % 3] as string))), 20);
  });

  it('a cycle of five calls over 30 calls is a loop', () => {
    expectCaughtBy(run(times(30, (i) => tool('t', { id: (i % 5) + 1 }))), 30);
  });

  it('A B A B, then C, then A B A B again, each read answered with the same text, is never stopped', () => {
    const detector = new StepLoopDetector();
    const verdicts = ['a', 'b', 'a', 'b', 'c', 'a', 'b', 'a', 'b'].flatMap((name) => [
      detector.observe({ type: 'action', tool: 'read_file', input: { file_path: `${name}.txt` } }),
      detector.observe({ type: 'observation', output: 'File content' }),
    ]);
    expect(verdicts.filter((v) => v.action === 'stop')).toEqual([]);
  });

  it('A B A B, then C, then A B A B again is no loop', () => {
    const events = ['a', 'b', 'a', 'b', 'c', 'a', 'b', 'a', 'b'].map(readFile);
    expectQuiet(run(events));
  });
});

describe('Gemini CLI 0.61.0 suite: chanting in streamed content', () => {
  it('1,000 random pieces of 10 characters are no loop', () => {
    const random = noise(7);
    expectQuiet(run(times(1000, () => content(random(10)))));
  });

  it('one 50-character chunk streamed 10 times in a row is a loop', () => {
    expectCaughtBy(run(times(CONTENT_REPEATS, () => content(sentenceChunk(1, CHUNK)))), CONTENT_REPEATS);
  });

  it('a list of 15 items sharing a long prefix, in one piece, is no loop', () => {
    const prefix = 'projects/my-google-cloud-project-12345/locations/us-central1/services/';
    const list = Array.from({ length: 15 }, (_, i) => `- ${prefix}${i}\n`).join('');
    expectQuiet(run([content(list)]));
  });

  it('a chunk repeated 10 times with 500 random characters between is no loop', () => {
    const random = noise(11);
    const events = Array.from({ length: CONTENT_REPEATS }, () => [
      content(sentenceChunk(1, CHUNK)),
      content(random(500)),
    ]).flat();
    expectQuiet(run(events));
  });

  it('a 150-character pattern is a loop within 12 chunks', () => {
    expectCaughtBy(
      run(times(CONTENT_REPEATS + 2, () => content(sentenceChunk(1, 150)))),
      CONTENT_REPEATS + 2,
    );
  });

  it('five "I will not…" lines streamed over and over are a loop within 15 chunks', () => {
    const lines =
      'I will not output any text.\n  I will just end the turn.\n  I am done.\n' +
      "  I will not do anything else.\n  I will wait for the user's next command.\n";
    expectCaughtBy(run(times(CONTENT_REPEATS + 5, () => content(lines))), CONTENT_REPEATS + 5);
  });

  it('"I have added all the requested logs…" streamed over and over is a loop within 15 chunks', () => {
    const line =
      'I have added all the requested logs and verified the test file. I will now mark the task as complete.\n  ';
    expectCaughtBy(run(times(CONTENT_REPEATS + 5, () => content(line))), CONTENT_REPEATS + 5);
  });

  it('"Thinking... Done. " streamed over and over is a loop within 30 chunks', () => {
    expectCaughtBy(run(times(CONTENT_REPEATS * 3, () => content('Thinking... Done. '))), CONTENT_REPEATS * 3);
  });

  it('the same three-sentence thought streamed over and over is a loop within 15 chunks', () => {
    const thoughts = 'I need to check the file. The file does not exist. I will create the file. ';
    expectCaughtBy(run(times(CONTENT_REPEATS + 5, () => content(thoughts))), CONTENT_REPEATS + 5);
  });
});

describe('Gemini CLI 0.61.0 suite: code blocks and markdown structure', () => {
  const repeated = (count: number, id = 1) => times(count, () => content(sentenceChunk(id, CHUNK)));

  it('a chunk repeated inside a fenced block is no loop', () => {
    expectQuiet(run([content('```\n'), ...repeated(CONTENT_REPEATS), content('\n```')]));
  });

  it('repetition that moves into a fenced block before its threshold is no loop', () => {
    const events = [
      ...repeated(CONTENT_REPEATS - 2),
      content('```javascript\n'),
      ...repeated(CONTENT_REPEATS),
    ];
    expectQuiet(run(events));
  });

  it('repetition after an opened fence, arriving in the same chunk as prose, is no loop', () => {
    expectQuiet(run([content('Here is some code:\n```\n'), ...repeated(CONTENT_REPEATS + 5)]));
  });

  it('fences opened, closed and opened again keep the repetition inside code: no loop', () => {
    const events = [
      content('Normal text '),
      content('```\n'),
      ...repeated(5),
      content('```\n'),
      content('```python\n'),
    ];
    expectQuiet(run(events));
  });

  it('repetition after a closed code block is a loop', () => {
    const events = [content('```'), content('\nsome code\n'), content('```'), ...repeated(CONTENT_REPEATS)];
    expectCaughtBy(run(events), events.length);
  });

  it('two code blocks with text between are no loop', () => {
    expectQuiet(run([content('```\ncode1\n```'), content('\nsome text\n'), content('```\ncode2\n```')]));
  });

  it('looping text after a code block is a loop', () => {
    const events = [content('```'), content('\ncode1\n'), content('```'), ...repeated(CONTENT_REPEATS)];
    expectCaughtBy(run(events), events.length);
  });

  it('a long code block repeating one loop statement is no loop', () => {
    const statement = 'for (let i = 0; i < 10; i++) { console.log(i); }';
    expectQuiet(run([content('```\n'), ...times(20, () => content(statement)), content('\n```')]));
  });

  it('a fence after nine repeated chunks starts code: the repetition after it is no loop', () => {
    expectQuiet(run([...repeated(CONTENT_REPEATS - 1), content('```'), ...repeated(CONTENT_REPEATS)]));
  });

  it.each([
    ['a table row', '| Column 1 | Column 2 |'],
    ['a list item', '* List item'],
    ['a heading', '## Heading'],
    ['a blockquote', '> Quote text'],
  ])('%s between nine repeated chunks and nine more restarts the count: no loop', (_name, line) => {
    expectQuiet(run([...repeated(CONTENT_REPEATS - 1), content(line), ...repeated(CONTENT_REPEATS - 1)]));
  });

  it.each([
    ['* Bullet item', 100],
    ['- Dash item', 101],
    ['+ Plus item', 102],
    ['1. Numbered item', 103],
    ['42. Another numbered item', 104],
    ['| Column 1 | Column 2 |', 200],
    ['|---|---|', 201],
    ['|++|++|', 202],
    ['+---+---+', 203],
    ['# H1 Heading', 300],
    ['## H2 Heading', 301],
    ['### H3 Heading', 302],
    ['#### H4 Heading', 303],
    ['##### H5 Heading', 304],
    ['###### H6 Heading', 305],
  ])(
    'the line "%s" after nine repeated chunks, then nine chunks of another sentence: no loop',
    (line, id) => {
      const events = [
        ...repeated(CONTENT_REPEATS - 1),
        content(`\n${line}`),
        ...repeated(CONTENT_REPEATS - 1, id),
      ];
      expectQuiet(run(events));
    },
  );

  it('empty content is no loop', () => {
    expectQuiet(run([content('')]));
  });

  it.each([
    ['dashes', '-'.repeat(CHUNK)],
    ['box drawing', '╭─'.repeat(CHUNK / 2)],
  ])('a divider of %s streamed 15 times is no loop', (_name, divider) => {
    expectQuiet(run(times(CONTENT_REPEATS + 5, () => content(divider))));
  });
});

describe('Gemini CLI 0.61.0 suite: strikes, resets and other events', () => {
  it('the same call again after a detection is the second strike: a stop', () => {
    const trace = run(times(TOOL_REPEATS + 2, sameCall));
    expectCaughtBy(trace, TOOL_REPEATS + 1);
    expectStopAt(trace, TOOL_REPEATS + 2);
  });

  it('after a detection, new text from the agent is not reported', () => {
    const trace = run([...times(TOOL_REPEATS + 1, sameCall), content('Recovery text')]);
    expectCaughtBy(trace, TOOL_REPEATS + 1);
    expect(
      trace.at(-1)?.verdicts.map((verdict) => verdict.action),
      formatTrace(trace),
    ).toEqual(['continue', 'continue']);
  });

  it('a tool call ends the text before it: fresh text after it is no loop', () => {
    const trace = run([...times(9, () => content('Some content.')), sameCall(), content('Fresh content.')]);
    expect(
      trace.at(-1)?.verdicts.map((verdict) => verdict.action),
      formatTrace(trace),
    ).toEqual(['continue', 'continue']);
  });

  it('an event that is no step is rejected and changes nothing', () => {
    const detector = new StepLoopDetector();
    const unknown = { type: 'unhandled_event' } as unknown as Parameters<StepLoopDetector['observe']>[0];
    expect(() => detector.observe(unknown)).toThrow(InvalidInputError);
    expect(() => detector.observe(unknown)).toThrow(InvalidInputError);
    expect(detector.stepCount).toBe(0);
    expect(firstDetection(new GeminiRun().feed([sameCall()]).end())).toBe(0);
  });
});
