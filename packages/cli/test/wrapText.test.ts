import { describe, expect, it } from 'vitest';
import { wrapped } from '../src/terminal/wrapText.js';

describe('wrapped', () => {
  const text =
    'hooks: settings of this project (/repo/loopguard.config.yaml, which git tracks): commands matching "^npm " are exempt';

  it('indents every line and keeps each within the columns, breaking only between words', () => {
    const lines = wrapped(text, '  ', 40);
    expect(lines.every((l) => l.startsWith('  ') && l.length <= 40)).toBe(true);
    expect(lines.map((l) => l.slice(2)).join(' ')).toBe(text);
  });

  it('a hanging indent: the first line uses its own indent and the whole width (review59)', () => {
    const lines = wrapped(text, '  ', 40, '');
    expect(lines[0]).toBe('hooks: settings of this project');
    expect(lines.slice(1).every((l) => l.startsWith('  ') && l.length <= 40)).toBe(true);
    expect([lines[0], ...lines.slice(1).map((l) => l.slice(2))].join(' ')).toBe(text);
  });
});
