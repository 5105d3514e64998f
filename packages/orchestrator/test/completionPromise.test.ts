import { describe, expect, it } from 'vitest';
import { BLOCKED_PROMISE, COMPLETE_PROMISE, detectCompletionPromise } from '../src/index.js';

describe('detectCompletionPromise', () => {
  it('recognises COMPLETE and BLOCKED', () => {
    expect(detectCompletionPromise(`done ${COMPLETE_PROMISE}`)).toEqual({
      kind: 'complete',
      promise: COMPLETE_PROMISE,
      text: 'COMPLETE',
    });
    expect(detectCompletionPromise(`stuck ${BLOCKED_PROMISE}`)).toEqual({
      kind: 'blocked',
      promise: BLOCKED_PROMISE,
      text: 'BLOCKED',
    });
  });

  it('ignores case and whitespace inside the tags', () => {
    expect(detectCompletionPromise('<PROMISE>\n  complete \n</Promise>')?.kind).toBe('complete');
  });

  it("recognises the config's completion promises, only inside the tags", () => {
    expect(detectCompletionPromise('<promise>All tests pass</promise>', ['All tests pass'])?.kind).toBe(
      'complete',
    );
    expect(detectCompletionPromise('<promise>All  tests\npass</promise>', ['All tests pass'])?.text).toBe(
      'All tests pass',
    );
    expect(detectCompletionPromise('All tests pass', ['All tests pass'])).toBeNull();
    expect(detectCompletionPromise('Not all tests pass', ['All tests pass'])).toBeNull();
    expect(detectCompletionPromise('<promise>Something else</promise>', ['All tests pass'])).toBeNull();
  });

  it('takes the last promise when there are several', () => {
    expect(detectCompletionPromise(`${COMPLETE_PROMISE} … on second thought ${BLOCKED_PROMISE}`)?.kind).toBe(
      'blocked',
    );
    expect(detectCompletionPromise(`${BLOCKED_PROMISE} … fixed it ${COMPLETE_PROMISE}`)?.kind).toBe(
      'complete',
    );
  });

  it('returns null for no output', () => {
    expect(detectCompletionPromise('')).toBeNull();
    expect(detectCompletionPromise('no promise here')).toBeNull();
  });
});
