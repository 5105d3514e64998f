import { describe, expect, it } from 'vitest';
import type { Step, StepVerdict } from '../../src/entries/steps.js';
import { InvalidInputError } from '../../src/index.js';
import { detections, feed, makeStepDetector } from './helpers.js';

describe('an action input that cannot be serialised is a typed error naming the field', () => {
  const nested = (depth: number) => {
    let value: unknown = 'leaf';
    for (let i = 0; i < depth; i++) value = { a: value };
    return value;
  };
  const circular: Record<string, unknown> = { command: 'ls' };
  circular.self = circular;
  const throwing = {
    command: 'ls',
    get path(): string {
      throw new Error('no access');
    },
  };
  const proxy = new Proxy(
    { command: 'ls' },
    {
      ownKeys: () => {
        throw new Error('revoked');
      },
    },
  );
  const revoked = Proxy.revocable({ command: 'ls' }, {});
  revoked.revoke();

  it.each([
    ['a cycle', circular, /step\.input\.self refers to itself/],
    ['a BigInt', { command: 'ls', n: 10n }, /step\.input\.n must be JSON-serialisable, got BigInt 10n/],
    ['a getter that throws', throwing, /step\.input\.path cannot be read: no access/],
    ['a Proxy whose trap throws', proxy, /step\.input cannot be enumerated: revoked/],
    ['a revoked Proxy', revoked.proxy, /step\.input cannot be/],
    ['nesting deeper than 64', nested(100), /is nested deeper than 64 levels/],
    ['an array holding a BigInt', { args: [1, 2n] }, /step\.input\.args\[1\] must be JSON-serialisable/],
  ])('%s', (_name, input, message) => {
    // A shell tool judges only the command, but its input is valid as a whole or not at all: the
    // same error whatever the tool.
    for (const tool of ['mcp_run', 'bash', 'Bash']) {
      const { detector } = makeStepDetector();
      expect(() => detector.observe({ type: 'action', tool, input })).toThrow(InvalidInputError);
      expect(() => detector.observe({ type: 'action', tool, input })).toThrow(message);
      expect(detector.stepCount).toBe(0);
    }
  });

  it('a cycle beside a shell command is an error, also nested inside an option', () => {
    const options: Record<string, unknown> = { depth: 1 };
    options.parent = options;
    const { detector } = makeStepDetector();
    expect(() =>
      detector.observe({
        type: 'action',
        tool: 'Bash',
        input: { command: 'ls', sandbox_permissions: options },
      }),
    ).toThrow(/step\.input\.sandbox_permissions\.parent refers to itself/);
    expect(detector.stepCount).toBe(0);
  });

  it('nesting up to the limit is accepted, and a rejected step is not counted', () => {
    const { detector } = makeStepDetector();
    detector.observe({ type: 'action', tool: 'bash', input: nested(60) });
    expect(() => detector.observe({ type: 'action', tool: 'bash', input: 1n })).toThrow(InvalidInputError);
    expect(detector.observe({ type: 'observation', output: 'ok' }).step).toBe(1);
    expect(detector.stepCount).toBe(2);
  });

  it('a step whose own field getter throws is a typed error', () => {
    const step = {
      type: 'message',
      get text(): string {
        throw new Error('boom');
      },
    };
    expect(() => makeStepDetector().detector.observe(step as unknown as Step)).toThrow(InvalidInputError);
  });
});

describe('observePartial: chanting caught while the message streams', () => {
  it('stops inside a reply that repeats two lines, long before it ends, without a nudge first', () => {
    const { detector } = makeStepDetector();
    const unit =
      'I will now rerun the failing test to check the fix.\nThe fix is correct and the test passes now.\n';
    const verdicts: StepVerdict[] = [];
    let sent = 0;
    for (let i = 0; i < 1_400 && verdicts.every((v) => v.action !== 'stop'); i++) {
      for (let at = 0; at < unit.length; at += 17) {
        verdicts.push(detector.observePartial(unit.slice(at, at + 17)));
        sent += Math.min(17, unit.length - at);
      }
    }
    const stop = verdicts.find((v) => v.action === 'stop');
    expect(stop).toMatchObject({ action: 'stop', loopType: 'chanting', followsNudge: false });
    expect(verdicts.some((v) => v.action === 'nudge')).toBe(false);
    expect(sent).toBeLessThan(5_000);
    expect(detector.stepCount).toBe(0);
  });

  it('catches text repeated without line breaks', () => {
    const { detector } = makeStepDetector();
    let stop = false;
    for (let i = 0; i < 400 && !stop; i++)
      stop = detector.observePartial('Thinking... Done. ').action === 'stop';
    expect(stop).toBe(true);
  });

  it('streamChantRepeats changes when it stops', () => {
    const early = makeStepDetector({ streamChantRepeats: 5 }).detector;
    const late = makeStepDetector({ streamChantRepeats: 40 }).detector;
    const line = 'Let me check the configuration file once more.\n';
    const first = (d: typeof early) => {
      for (let i = 1; i <= 60; i++) if (d.observePartial(line).action === 'stop') return i;
      return -1;
    };
    expect(first(early)).toBe(5);
    expect(first(late)).toBe(40);
  });

  it('a complete message starts the next one afresh', () => {
    const { detector } = makeStepDetector();
    const line = 'Let me check the configuration file once more.\n';
    for (let i = 0; i < 15; i++) detector.observePartial(line);
    detector.observe({ type: 'message', text: line.repeat(15) });
    for (let i = 0; i < 15; i++) expect(detector.observePartial(line).action).toBe('continue');
  });

  it('rejects a delta that is not a string', () => {
    expect(() => makeStepDetector().detector.observePartial(3 as unknown as string)).toThrow(
      'delta must be a string, got number 3',
    );
  });

  it('repeated tokens inside a code block are not chanting', () => {
    const { detector } = makeStepDetector();
    detector.observePartial('Here is the loop:\n```js\n');
    for (let i = 0; i < 200; i++) {
      expect(detector.observePartial('for (let i = 0; i < 10; i++) { console.log(i); }\n').action).toBe(
        'continue',
      );
    }
  });
});

describe("Gemini CLI's negatives raise no nudge", () => {
  const message = (text: string): Step => ({ type: 'message', text });
  const cases: Array<[string, string]> = [
    [
      'a code block with repeated tokens',
      `Here:\n\`\`\`js\n${'for (let i = 0; i < 10; i++) { console.log(i); }\n'.repeat(40)}\`\`\``,
    ],
    [
      'a table',
      `| Column 1 | Column 2 |\n|---|---|\n${'| same cell value | same other value |\n'.repeat(40)}`,
    ],
    [
      'a list with a long shared prefix',
      Array.from(
        { length: 40 },
        (_, i) => `- projects/my-google-cloud-project-12345/locations/us-central1/services/${i}`,
      ).join('\n'),
    ],
    ['headings', Array.from({ length: 40 }, () => '## Heading of the section').join('\n')],
    ['blockquotes', Array.from({ length: 40 }, () => '> Quoted text that repeats in the quote').join('\n')],
    ['divider lines', Array.from({ length: 40 }, () => '-----------------------------------').join('\n')],
    [
      'box drawing',
      Array.from(
        { length: 40 },
        () => '╔══════════════════╗\n║                  ║\n╚══════════════════╝',
      ).join('\n'),
    ],
    ['random content', Array.from({ length: 200 }, (_, i) => ((i * 7919) % 104729).toString(36)).join(' ')],
  ];
  it.each(cases)('%s', (_name, text) => {
    const verdicts = feed(makeStepDetector().detector, [message(text)]);
    expect(detections(verdicts)).toEqual([]);
    const streaming = makeStepDetector().detector;
    for (let at = 0; at < text.length; at += 40) {
      expect(streaming.observePartial(text.slice(at, at + 40)).action).toBe('continue');
    }
  });
});
