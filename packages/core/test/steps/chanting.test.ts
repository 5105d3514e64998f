import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ChantingStream } from '../../src/steps/rules/ChantingStream.js';
import { makeStepDetector } from './helpers.js';

/** The whole-message verdict (chantRepeats 10, chantShare 0.5 by default). */
const judge = (text: string) => makeStepDetector().detector.observe({ type: 'message', text });

const said = 'I will fix the parser now. ';

describe('chanting: a repeated block is one chant', () => {
  it('four distinct lines said 12 times chant, though each line alone covers a quarter', () => {
    const block =
      'I will check the parser again.\nThe parser looks fine to me.\nLet me look at the lexer.\nThe lexer looks fine too.\n';
    expect(judge(block.repeat(12))).toMatchObject({ action: 'nudge', loopType: 'chanting', repeats: 12 });
  });

  it('the same block said 9 times is below chantRepeats', () => {
    const block = 'I will check the parser again.\nThe parser looks fine to me.\n';
    expect(judge(block.repeat(9)).action).toBe('continue');
  });

  it('the block must still cover chantShare of the prose', () => {
    const block = 'I will check the parser again.\nThe parser looks fine to me.\n';
    const explanation = Array.from({ length: 40 }, (_, i) => `Finding ${i} concerns module ${i * 13}.`).join(
      ' ',
    );
    expect(judge(`${explanation}\n${block.repeat(12)}`).action).toBe('continue');
    expect(
      makeStepDetector({ chantShare: 0.2 }).detector.observe({
        type: 'message',
        text: `${explanation}\n${block.repeat(12)}`,
      }).action,
    ).toBe('nudge');
  });
});

describe('chanting: code fences anywhere in a line', () => {
  it('prose right after a closing fence on the same line is prose', () => {
    expect(judge(`\`\`\`\nnpm test\n\`\`\`${said.repeat(12)}`).loopType).toBe('chanting');
  });

  it('a fence in the middle of a line opens code: what follows is not prose', () => {
    expect(judge(`${said.repeat(6)}\`\`\`js ${'console.log(value). '.repeat(30)}`).action).toBe('continue');
    expect(judge(`${said.repeat(6)}\`\`\`js\n${said.repeat(30)}`).action).toBe('continue');
  });

  it('prose after the block closes counts again', () => {
    expect(judge(`Here:\`\`\`js\nrun()\n\`\`\`\n${said.repeat(12)}`).loopType).toBe('chanting');
  });
});

describe('chanting: structure between repeats ends the run', () => {
  it.each([
    ['a table row', '\n| step | result |\n'],
    ['a heading', '\n## Next attempt\n'],
    ['a blockquote', '\n> Quoted from the log\n'],
    ['a list item', '\n- the next item\n'],
    ['a code block', '\n```\nmake\n```\n'],
    ['a table row inside a line', '| step | result |'],
    ['a heading marker inside a line', '## Next attempt'],
    ['a list marker inside a line', '* the next item'],
  ])('%s between 9 and 9 repeats: no chant; plain prose there: chant', (_name, structure) => {
    expect(judge(`${said.repeat(9)}${structure}${said.repeat(9)}`).action).toBe('continue');
    expect(judge(`${said.repeat(9)}Hmm, one moment. ${said.repeat(9)}`).loopType).toBe('chanting');
  });

  it('structure that recurs with the chant is part of it', () => {
    expect(judge('## Status\nI will fix the parser now.\n'.repeat(12)).loopType).toBe('chanting');
    expect(judge('- I will fix the parser now.\n'.repeat(12)).loopType).toBe('chanting');
    expect(judge('I will check that x > 0 holds.\n'.repeat(12)).loopType).toBe('chanting');
    expect(judge('I will retry the build once more:\n```\nnpm test\n```\n'.repeat(12)).loopType).toBe(
      'chanting',
    );
  });

  it('the longest uninterrupted run counts: 12 repeats after the structure chant', () => {
    expect(judge(`${said.repeat(3)}\n| a | b |\n${said.repeat(12)}`).loopType).toBe('chanting');
  });

  it('text repeated without breaks is counted in its own run only', () => {
    const unbroken = 'about the parser and ';
    expect(judge(`Let me think ${unbroken.repeat(9)}\n| a | b |\n${unbroken.repeat(9)}`).action).toBe(
      'continue',
    );
    expect(judge(`Let me think ${unbroken.repeat(9)}\n| a | b |\n${unbroken.repeat(20)}`).loopType).toBe(
      'chanting',
    );
  });
});

describe('chanting while a message streams (observePartial)', () => {
  const stops = (pieces: string[], streamChantRepeats = 20) => {
    const { detector } = makeStepDetector({ streamChantRepeats });
    return pieces.findIndex((piece) => detector.observePartial(piece).action === 'stop') + 1;
  };

  it('a block of three lines said over and over is cut at its 20th time', () => {
    const block = 'I will not output any text.\nI will just end the turn.\nI am done now.\n';
    expect(stops(Array.from({ length: 30 }, () => block))).toBe(20);
  });

  it('a fence in the middle of a line opens code; prose after the closing fence counts again', () => {
    const line = 'I will check the parser again.\n';
    expect(stops([`Here it is:\`\`\`js\n`, ...Array.from({ length: 30 }, () => line)])).toBe(0);
    expect(stops(['```js\nrun()\n```', ...Array.from({ length: 30 }, () => line)])).toBe(21);
  });

  it('structure between repeats ends the run; recurring structure does not', () => {
    const line = 'I will check the parser again.\n';
    const lines = (n: number) => Array.from({ length: n }, () => line);
    expect(stops([...lines(15), '## Heading\n', ...lines(15)])).toBe(0);
    expect(stops([...lines(15), 'Hmm, one moment.\n', ...lines(15)])).toBe(21);
    expect(stops(Array.from({ length: 30 }, () => `## Status\n${line}`))).toBe(20);
  });

  it('a snapshot written before the run fields existed still restores', () => {
    const stream = new ChantingStream(5, 0.5);
    stream.restore({
      carry: '',
      inCode: false,
      counts: [['i will check the parser again', 4]],
      best: { segment: 'i will check the parser again', count: 4 },
      proseLength: 124,
      sinceCheck: 0,
    });
    expect(stream.push('I will check the parser again.\n')).toEqual({
      segment: 'i will check the parser again',
      count: 5,
    });
  });

  it('where the deltas are cut does not change when the chant is found (lines under 512 characters)', () => {
    const piece = fc.constantFrom(
      'I will check the parser again.',
      ' The parser looks fine.',
      '\n',
      '\n## Heading\n',
      '\n| a | b |\n',
      '```',
      '\n- item\n',
      ' x > 0 ',
    );
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 120 }),
        fc.array(fc.nat(), { maxLength: 40 }),
        (parts, cuts) => {
          const text = parts.join('');
          fc.pre(text.split('\n').every((line) => line.length < 512));
          const whole = new ChantingStream(4, 0.5).push(text);
          const stream = new ChantingStream(4, 0.5);
          const points = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort((a, b) => a - b);
          let last = null;
          let from = 0;
          for (const at of [...points, text.length]) {
            last = stream.push(text.slice(from, at)) ?? last;
            from = at;
          }
          expect(last).toEqual(whole);
        },
      ),
      { numRuns: 300 },
    );
  });
});
