import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

describe('the demo (the README main job)', () => {
  it('detects and recovers each loop type, with the seed log lines and SQL', () => {
    const cwd = fileURLToPath(new URL('..', import.meta.url));
    const out = execFileSync(process.execPath, ['scripts/demo.mjs'], { cwd, encoding: 'utf8' });
    for (const line of [
      'Attempt 4: LOOP DETECTED (completed_task_revisit) - force_next',
      'Next task: T3.4.3 (fresh start)',
      '[log] Loop detected: blocked_task_spin, taskId=T3.4.3, attemptCount=3, recommendation=unblock_authority',
      '[log] Granting unblock authority for T3.4.3',
      '[log] Loop recovery applied: unblock_authority',
      'T3.4.3 is now blocked: Loop escalation: Loop persists after unblock authority granted.',
      '5 attempts -> force_next',
    ]) {
      expect(out).toContain(line);
    }
    const topics = [...out.matchAll(/^--- (\w+) \(/gm)].map((m) => m[1]);
    expect(topics).toEqual(['loop_recovery', 'loop_escalation', 'unblock_authority', 'loop_recovery']);
  });
});
