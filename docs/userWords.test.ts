import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// What a user (of the agent CLIs, or embedding loopguard) reads speaks of sessions, tool calls and
// dollars: never "the seed" (the specification loopguard was built from, which no user has read).
const docs = dirname(fileURLToPath(import.meta.url));
const USER_DOCS = [
  'cli.md',
  'hooks.md',
  'scan.md',
  'spend.md',
  'server.md',
  'guards.md',
  'sql.md',
  'embedding.md',
  'iteration-control.md',
  'loop-detector.md',
  'scale-out.md',
];
/** An export's name an embedder imports (`@loopguard/core/seeds`) is a name, not a word of the docs. */
const EXPORT_NAMES = /@loopguard\/core\/seeds\b/g;

describe('the user-facing docs', () => {
  it.each(USER_DOCS)('%s never names the seed', (name) => {
    const lines = readFileSync(join(docs, name), 'utf8').split('\n');
    const words = lines.map((line) => line.replace(EXPORT_NAMES, ''));
    expect(words.filter((line) => /\bseed(?:'s|s)?\b|\bseed-\d/i.test(line))).toEqual([]);
  });

  // nor loopguard's own word for what it reads ("the step-level detector", "the step detector"):
  // the loop detector, tool calls and messages (a JSON field such as `nudgeStep` keeps its name)
  // the README's table of what loops says what the user sees loop, tool calls (qa60); a package's
  // row may name its API (`StepLoopDetector`, `@loopguard/core/steps`)
  it("README's rows of what loops never speak of steps", () => {
    const rows = readFileSync(join(docs, '..', 'README.md'), 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('| ') && !line.includes('@loopguard/'));
    const words = (line: string) => line.replace(/`[^`]*`|\[[^\]]*\]\([^)]*\)/g, '');
    expect(rows.filter((line) => /\bsteps?\b/i.test(words(line)))).toEqual([]);
  });

  it.each(USER_DOCS)('%s never names the step detector', (name) => {
    const lines = readFileSync(join(docs, name), 'utf8').split('\n');
    expect(lines.filter((line) => /\bstep[- ]level\b|\bstep detector\b/i.test(line))).toEqual([]);
  });
});
