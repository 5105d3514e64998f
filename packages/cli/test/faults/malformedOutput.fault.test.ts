import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../../src/terminal/exitCodes.js';
import { artifact, loopguard, stored, tempRepo } from '../runHelpers.js';

describe('malformed agent output', () => {
  it('a step line nested 5,000 deep and a broken line never crash the run: counted, warned, the run goes on', async () => {
    const { dir } = tempRepo('cat steps.jsonl\necho $N >> w.txt');
    const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;
    writeFileSync(
      join(dir, 'steps.jsonl'),
      [
        `{"type":"action","tool":"bash","input":${deep}}`,
        '{"type":"action","tool":"bash","input":',
        '{"type":"action","tool":"bash","input":"ls"}',
        '',
      ].join('\n'),
    );
    const result = await loopguard(dir, [
      'run',
      '--prompt-file',
      'PROMPT.md',
      '--agent-stream',
      'jsonl',
      '--max-iterations',
      '2',
      '--',
      './agent.sh',
    ]);
    expect(result.code).toBe(EXIT_CODES.budgetSpent);
    expect(result.stderr).not.toMatch(/internal error|at .*\.js:\d+/);
    const { run, iterations } = stored(dir);
    expect(iterations).toHaveLength(2);
    const metrics = artifact(dir, run.id, 1, 'metrics.json');
    expect(metrics.malformedStepLines).toBeGreaterThanOrEqual(1);
    expect(result.stderr).toMatch(
      /warning: iteration 1: \d+ agent output line\(s\) could not be read as tool calls or messages/,
    );
  });
});
