import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { openLoopGuardDatabase, SqliteStatusReader } from '../packages/sqlite/src/index.js';

const cwd = mkdtempSync(join(tmpdir(), 'loopguard-demo-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

describe('the demo (the README main job: loopguard demo)', () => {
  it('detects and recovers each loop type through ticks, a sticky escalation, a cross-task cycle and a guard trip, a Claude Code hook session and an AI SDK run, with the seed log lines, SQL and status', async () => {
    const bin = fileURLToPath(new URL('../packages/cli/dist/bin.js', import.meta.url));
    const out = execFileSync(process.execPath, [bin, 'demo'], { cwd, encoding: 'utf8' });
    for (const line of [
      'Attempt 4: LOOP DETECTED (completed_task_revisit) - force_next',
      'Next task: T3.4.3 (fresh start)',
      '[log] Loop detected: blocked_task_spin, taskId=T3.4.3, attemptCount=3, recommendation=unblock_authority',
      '[log] Granting unblock authority for T3.4.3',
      '[log] Loop recovery applied: unblock_authority',
      'T3.4.3 is now blocked: Loop escalation: Loop persists after unblock authority granted.',
      'Attempt 6: LOOP DETECTED (no_progress_repeat) - force_next',
      'Attempt 4: LOOP DETECTED (blocked_task_spin) - escalate',
      'Tick 5: T6.2.3 skipped - escalated, waiting for resolveEscalation()',
      'Tick 6: T6.2.3 skipped - escalated, waiting for resolveEscalation()',
      'T6.2.3 is still blocked',
      'alice resolved the escalation ("Rotated the token"); T6.2.3 is pending',
      'Attempt 1: T6.2.3 (in_progress) - "Called the API with the new token"',
      'Attempt 10: LOOP DETECTED (cross_task_cycle T5.1.1 -> T5.1.2 -> T5.1.3) - escalate',
      'T5.1.1 blocked, T5.1.2 blocked, T5.1.3 blocked',
      'BLOCKED by circuit_breaker - Circuit breaker OPEN: 3 consecutive validation failures (threshold: 3).',
      'T8.2.1 is now blocked: Iteration safety guard: circuit_breaker',
      '6 attempts, looping: false',
      'Iteration 2: a file edited, the Bash call denied - breaker OPEN',
      'Breaker OPEN: permission_denied: permission denied for tool Bash (2 in a row, threshold 2)',
      'Iteration 3: no files changed - breaker OPEN',
      'Breaker OPEN: no_file_changes: no files changed (3 in a row, threshold 3)',
      'Call 3: edit 69:69 -> NUDGE (near_duplicate)',
      'Call 4: edit 68:68 -> STOP (near_duplicate)',
      'Event 2 PostToolUseFailure Bash: node test.js -> failed: AssertionError [ERR_ASSERTION]',
      'Event 8 PostToolUseFailure Bash: node test.js -> NUDGE (in the model\'s next request as "PostToolUseFailure:Bash hook additional context"): "Loop detected (same_error)',
      'Event 9 PreToolUse Bash: node test.js -> STOP (denied, the session ends): "loopguard: Stopped (same_error)',
      'The hook recorded 2 entries (loop_nudge, loop_stop)',
      "Call 2: readFile(deploy/config.yaml) -> Error: ENOENT: no such file or directory, open 'deploy/config.yaml'",
      '-> NUDGE (same_error): Loop detected (same_error)',
      '-> STOP (same_error): Stopped (same_error): the loop went on after the nudge',
      'generateText ended after 4 model calls (finishReason tool-calls); the nudge was in prompt 4 of 4',
      'Reply 10: WARN ($0.40 after 10 replies): loopguard: you have spent $0.40 of $0.50 on this session (81 %)',
      'Reply 13: STOP ($0.53 after 13 replies): loopguard: this session reached its budget ($0.53 of $0.50)',
    ]) {
      expect(out).toContain(line);
    }
    // the scan scenario: a transcript the demo writes, scanned; the loop and its waste after the stop
    expect(out).toMatch(
      /1 session looped where loopguard would have stopped it: [1-9]\d* tool calls, [\d,]+ tokens \(\$\d+\.\d\d\) spent after the stop\./,
    );
    expect(out).toMatch(/\| claude \| [\w-]+ +\| \w+ +\| .*Bash npm test → error "Error: Cannot find module/);
    // the hook session and the AI SDK run are on the recoveries page, as the dashboard lists it
    const database = openLoopGuardDatabase(join(cwd, '.loopguard', 'demo.db'), { readonly: true });
    try {
      const page = await new SqliteStatusReader(database).recoveryPage({ limit: 10 });
      const steps = page.recoveries.filter((r) => r.topic === 'loop_nudge' || r.topic === 'loop_stop');
      expect(steps.map((r) => [r.action, r.taskId?.replace(/^claude:.*/, 'claude:<session>')])).toEqual([
        ['stop', 'T10.1.1'],
        ['nudge', 'T10.1.1'],
        // Codex: every repeat from the 4th call is denied, each one a stop
        ['stop', 'codex:demo-codex-session'],
        ['stop', 'codex:demo-codex-session'],
        ['stop', 'codex:demo-codex-session'],
        ['nudge', 'codex:demo-codex-session'],
        ['stop', 'claude:<session>'],
        ['nudge', 'claude:<session>'],
      ]);
      expect(steps[6]?.metadata).toMatchObject({
        agent: 'claude',
        hookEvent: 'PreToolUse',
        followsNudge: true,
      });
    } finally {
      database.close();
    }
    const table = out.slice(out.indexOf('LIMIT 10;'), out.indexOf('Status ('));
    const topics = [...table.matchAll(/\| (loop_recovery|unblock_authority|loop_escalation) /g)].map(
      (m) => m[1],
    );
    expect(topics).toEqual([
      'loop_escalation',
      'loop_escalation',
      'loop_recovery',
      'loop_escalation',
      'unblock_authority',
      'loop_recovery',
    ]);
    const sessionsAt = out.indexOf('\nThe agent sessions');
    const status = JSON.parse(out.slice(out.indexOf('{', out.indexOf('Status (')), sessionsAt));
    expect(status).toEqual({
      running: false,
      tickCount: 41,
      loopDetection: {
        'T6.2.3': { attemptCount: 1, lastAttempt: expect.any(Number) },
        'T9.1.1': { attemptCount: 6, lastAttempt: expect.any(Number) },
      },
      breaker: { state: 'OPEN', reason: 'no_file_changes: no files changed (3 in a row, threshold 3)' },
    });
    // What a user reads: their sessions, in their words, and a history that ends before now.
    expect(out.slice(sessionsAt)).toMatch(/claude\s+\| [0-9a-f-]{36} \| stopped by loopguard/);
    expect(out).not.toMatch(/the seed/i);
    expect(
      Math.max(
        ...Object.values(status.loopDetection as Record<string, { lastAttempt: number }>).map(
          (t) => t.lastAttempt,
        ),
      ),
    ).toBeLessThan(Date.now());
  });

  it('leaves no folder behind outside its own .loopguard/demo-files, emptied at every run', () => {
    const bin = fileURLToPath(new URL('../packages/cli/dist/bin.js', import.meta.url));
    const before = new Set(readdirSync(tmpdir()));
    execFileSync(process.execPath, [bin, 'demo'], { cwd, encoding: 'utf8' });
    expect(
      readdirSync(tmpdir()).filter((name) => !before.has(name) && name.startsWith('loopguard-demo')),
    ).toEqual([]);
    expect(readdirSync(join(cwd, '.loopguard', 'demo-files')).sort()).toEqual([
      // the Claude Code replay runs in a temporary folder (under .loopguard its Read would be a call
      // against loopguard's own files), removed afterwards: the check above
      'codex-project',
      'transcripts',
    ]);
  });
});
