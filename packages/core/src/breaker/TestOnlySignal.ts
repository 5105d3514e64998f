import type { IterationObservation } from './breakerTypes.js';
import { type SignalJudgement, type SignalSnapshot, StagnationSignal } from './StagnationSignal.js';

/** Whether a path is a test file (`*.test.ts`, `*_test.go`, `test_*.py`, `tests/…`, `__tests__/…`, `spec/…`). */
export function isTestFile(path: string): boolean {
  return /(?:^|\/)(?:__tests__|tests?|spec|specs)\/|\.(?:test|spec)\.[\w]+$|_test\.\w+$|(?:^|\/)test_[^/]*\.py$/.test(
    path,
  );
}

/**
 * Seed 003's test-only loops: stalled when the iteration changed only test files and test-only
 * iterations are more than `share` of the last `window` iterations that changed files (at least 3
 * of them). An agent that keeps rewriting tests without touching the code is not progressing.
 * Unavailable when the changed files are unknown (outside git).
 * @example
 * const s = new TestOnlySignal(1, 0.3, 10);
 * s.observe({ iteration: 1, changedFiles: ['src/a.test.ts'] });
 */
export class TestOnlySignal extends StagnationSignal {
  /** @inheritdoc */
  readonly name = 'test_only' as const;
  /** The last iterations that changed files: `T` test-only, `C` code. */
  private recent = '';

  /**
   * @param threshold - stalled judgements in a row that open the breaker.
   * @param share - the share of test-only iterations above which an iteration is stalled (0..1).
   * @param window - how many of the last iterations that changed files are counted.
   */
  constructor(
    threshold: number,
    readonly share: number,
    readonly window: number,
  ) {
    super(threshold);
  }

  protected judge({ changedFiles }: IterationObservation): SignalJudgement {
    if (changedFiles === null || changedFiles === undefined)
      return { status: 'unavailable', detail: 'changed files unknown' };
    if (changedFiles.length === 0) return { status: 'clear', detail: 'no files changed' };
    const testOnly = changedFiles.every(isTestFile);
    this.recent = `${this.recent}${testOnly ? 'T' : 'C'}`.slice(-this.window);
    const tests = [...this.recent].filter((c) => c === 'T').length;
    const detail = `test-only iterations: ${tests} of the last ${this.recent.length} that changed files`;
    if (!testOnly) return { status: 'progress', detail };
    if (this.recent.length < 3 || tests / this.recent.length <= this.share)
      return { status: 'clear', detail };
    return {
      status: 'stalled',
      key: 'test_only',
      detail: `${detail} (over ${Math.round(this.share * 100)} %)`,
    };
  }

  /** Forgets the streak and the window. */
  override reset(): void {
    super.reset();
    this.recent = '';
  }

  /** The streak, with the window in the key (`test_only|TTC…`). */
  override snapshot(): SignalSnapshot {
    const { streak, key } = super.snapshot();
    return { streak, key: `${key ?? ''}|${this.recent}` };
  }

  /** Restores a {@link snapshot}. */
  override restore(snapshot: SignalSnapshot): void {
    const [key, recent] = (snapshot.key ?? '').split('|');
    super.restore({ streak: snapshot.streak, key: key === '' || key === undefined ? null : key });
    this.recent = /^[TC]*$/.test(recent ?? '') ? (recent ?? '').slice(-this.window) : '';
  }
}
