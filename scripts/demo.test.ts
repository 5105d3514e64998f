import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const cwd = mkdtempSync(join(tmpdir(), 'loopguard-demo-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

describe('the demo (the README main job: loopguard demo)', () => {
  it('detects and recovers each loop type and a guard trip, with the seed log lines, SQL and status', () => {
    const bin = fileURLToPath(new URL('../packages/cli/dist/bin.js', import.meta.url));
    const out = execFileSync(process.execPath, [bin, 'demo'], { cwd, encoding: 'utf8' });
    for (const line of [
      'Attempt 4: LOOP DETECTED (completed_task_revisit) - force_next',
      'Next task: T3.4.3 (fresh start)',
      '[log] Loop detected: blocked_task_spin, taskId=T3.4.3, attemptCount=3, recommendation=unblock_authority',
      '[log] Granting unblock authority for T3.4.3',
      '[log] Loop recovery applied: unblock_authority',
      'T3.4.3 is now blocked: Loop escalation: Loop persists after unblock authority granted.',
      '5 attempts -> force_next',
      'BLOCKED by circuit_breaker - Circuit breaker OPEN: 3 consecutive validation failures (threshold: 3).',
      'T8.2.1 is now blocked: Iteration safety guard: circuit_breaker',
      '3 attempts, looping: false',
      'Iteration 3: no files changed - breaker OPEN',
      'Breaker OPEN: no_file_changes: no files changed (3 in a row, threshold 3)',
    ]) {
      expect(out).toContain(line);
    }
    const table = out.slice(out.indexOf('LIMIT 10;'), out.indexOf('Status ('));
    const topics = [...table.matchAll(/\| (loop_recovery|unblock_authority|loop_escalation) /g)].map(
      (m) => m[1],
    );
    expect(topics).toEqual(['loop_recovery', 'loop_escalation', 'unblock_authority', 'loop_recovery']);
    const status = JSON.parse(out.slice(out.indexOf('{', out.indexOf('Status ('))));
    expect(status).toEqual({
      running: false,
      tickCount: 17,
      loopDetection: { 'T9.1.1': { attemptCount: 3, lastAttempt: expect.any(Number) } },
      breaker: { state: 'OPEN', reason: 'no_file_changes: no files changed (3 in a row, threshold 3)' },
    });
  });
});
