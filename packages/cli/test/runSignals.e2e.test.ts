import { describe, expect, it } from 'vitest';
import { structuredResultOf } from '../src/run/agentResult.js';
import { permissionDenialsOf, questionOf } from '../src/run/agentSignals.js';
import { EXIT_CODES } from '../src/terminal/exitCodes.js';
import { loopguard, stored, tempRepo } from './runHelpers.js';

const run = (...args: string[]) => ['run', '--prompt-file', 'PROMPT.md', ...args];

describe('permission denials, questions, test-only iterations', () => {
  it('reads denials from the result and from tool results; finds a question addressed to the user', () => {
    const result =
      '{"type":"result","subtype":"success","is_error":false,"result":"blocked","permission_denials":[{"tool_name":"Bash","tool_use_id":"t1","tool_input":{}}]}';
    expect(permissionDenialsOf(result, structuredResultOf(result))).toEqual(['Bash']);
    expect(
      permissionDenialsOf("Claude requested permissions to use Write, but you haven't granted it yet.", null),
    ).toEqual(['Write']);
    expect(permissionDenialsOf('Permission to use WebFetch was denied', null)).toEqual(['WebFetch']);
    expect(permissionDenialsOf('chmod: permission denied: a.sh', null)).toEqual([]);
    expect(questionOf('I found two configs.\nShould I delete the old one?', null)).toBe(
      'Should I delete the old one?',
    );
    expect(questionOf('Why does this fail? Because x is undefined.', null)).toBeNull();
    expect(questionOf('done', null)).toBeNull();
  });

  it('two iterations whose tool calls were denied open the breaker, the reason naming the tool', async () => {
    const { dir } = tempRepo(
      `echo $N >> w.txt\necho '{"type":"result","subtype":"success","is_error":false,"result":"I could not run the tests","permission_denials":[{"tool_name":"Bash"}]}'`,
    );
    const result = await loopguard(dir, run('--on-stagnation', 'abort', '--', './agent.sh'));
    expect(result.code).toBe(EXIT_CODES.aborted);
    const { run: r } = stored(dir);
    expect(r.iteration).toBe(2);
    expect(r.reason).toContain(
      'permission_denied: permission denied for tool Bash (2 in a row, threshold 2)',
    );
  });

  it('--permission-denial-threshold changes when it opens', async () => {
    const { dir } = tempRepo(
      `echo $N >> w.txt\necho "Claude requested permissions to use Write, but you haven't granted it yet."`,
    );
    const result = await loopguard(
      dir,
      run('--on-stagnation', 'abort', '--permission-denial-threshold', '3', '--', './agent.sh'),
    );
    expect(result.code).toBe(EXIT_CODES.aborted);
    expect(stored(dir).run.iteration).toBe(3);
  });

  it('an iteration that ends with a question pauses (exit 3), not counted as no progress; --on-question ignore judges it', async () => {
    const { dir } = tempRepo(
      'echo "I found two config files."\necho "Which one should I keep, a.json or b.json?"',
    );
    const result = await loopguard(dir, run('--', './agent.sh'));
    expect(result.code).toBe(EXIT_CODES.paused);
    const { run: r, iterations, transitions } = stored(dir);
    expect(r).toMatchObject({ status: 'paused', iteration: 1 });
    expect(r.reason).toBe('the agent asked: Which one should I keep, a.json or b.json?');
    expect(iterations[0]).toMatchObject({ progress: 'unknown', signals: [] });
    expect(transitions).toEqual([]);
    const ignored = tempRepo('echo "Which one should I keep, a.json or b.json?"');
    const judged = await loopguard(
      ignored.dir,
      run('--on-question', 'ignore', '--on-stagnation', 'abort', '--', './agent.sh'),
    );
    expect(judged.code).toBe(EXIT_CODES.aborted);
    expect(stored(ignored.dir).run.reason).toContain('no_file_changes');
  });

  it('an agent that only changes tests opens the breaker on test_only once they pass 30 %', async () => {
    const { dir } = tempRepo('mkdir -p tests\necho "case $N" >> tests/a.test.sh');
    const result = await loopguard(dir, run('--on-stagnation', 'abort', '--', './agent.sh'));
    expect(result.code).toBe(EXIT_CODES.aborted);
    const { run: r } = stored(dir);
    // no --task, no --plan: no task is blocked, the reason is the breaker's alone (qa64: not "task (none)")
    expect(r.reason).toMatch(/^test_only: test-only iterations: 5 of the last 5/);
    expect(r.iteration).toBe(5);
  });
});
