import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { openLoopGuardDatabase, SqliteStatusReader } from '../packages/sqlite/src/index.js';

/** `text` as a regular expression matching it literally. */
function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

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
      // sess68: the narration says a loop's kind in words, as every door does
      'Call 3: edit 69:69 -> NUDGE (near-identical calls)',
      'Call 4: edit 68:68 -> STOP (near-identical calls)',
      'Stopped (near-identical calls): the loop went on after the nudge',
      'Event 2 PostToolUseFailure Bash: node test.js -> failed: AssertionError [ERR_ASSERTION]',
      'Event 8 PostToolUseFailure Bash: node test.js -> NUDGE (in the model\'s next request as "PostToolUseFailure:Bash hook additional context"): "Loop detected (same_error)',
      'Event 9 PreToolUse Bash: node test.js -> STOP (refused, the session ends): "loopguard: Stopped (same_error)',
      'The hook recorded 2 entries (loop_nudge, loop_stop)',
      "Call 2: readFile(deploy/config.yaml) -> Error: ENOENT: no such file or directory, open 'deploy/config.yaml'",
      '-> NUDGE (same error): Loop detected (same error)',
      '-> STOP (same error): Stopped (same error): the loop went on after the nudge',
      'generateText ended after 4 model calls (finishReason tool-calls); the nudge was in prompt 4 of 4',
      // the spend guard, through the built `loopguard hook claude`
      'Call 5 Edit src/page5.tsx: WARN: loopguard: you have spent $0.42 of $0.50 on this session (84 %)',
      'Call 6 Edit src/page6.tsx: STOP (the session ends): loopguard: this session reached its budget ($0.504 of $0.50)',
      'The hook recorded 2 entries (spend_warning, spend_stop) and what the Claude Code session demo-spend-session spent',
      // sessions, never the orchestrator's tasks, where the demo speaks of agent sessions (demo46)
      'The hook recorded 3 entries (loop_nudge, call_refused, loop_stop) for the Codex session demo-codex-session',
      '1 nudge and 1 stop recorded for the ai-sdk session demo-ai-sdk-run (loop_nudge, loop_stop)',
      // what landed: a call in another workdir, the model's off switch refused, a run with no loop
      "Call 2 Bash: npm test (workdir packages/web, recorded in the session's project) -> failed",
      'Call 5 PreToolUse Bash: npm uninstall -g @loopguard/cli -> REFUSED (it would switch loopguard off), never runs',
      'the ai-sdk session demo-ai-sdk-clean-run, no loop found',
    ]) {
      expect(out).toContain(line);
    }
    // sess68: a loop's code is left only in a hook's answer, quoted as the agent got it
    expect(out).toContain('Calls 4-5: edit latex.py, run again -> NUDGE (same result after edits)');
    for (const line of out.split('\n').filter((text) => !text.includes('"')))
      expect(line).not.toMatch(/\((?:same_error|near_duplicate|outcome_stagnation|repeated_action)\)/);
    // the scan scenario: a transcript the demo writes, scanned; the loop and its waste after the stop
    expect(out).toMatch(
      /1 session looped where loopguard would have stopped it: [1-9]\d* tool calls, [\d,]+ tokens \(\$\d+\.\d\d\) spent after the stop\./,
    );
    expect(out).toMatch(
      /\| claude \| [\w-]+ +\| same error +\| .*Bash npm test → error "Error: Cannot find module/,
    );
    expect(out).toMatch(
      /The hook recorded 2 entries \(loop_nudge, loop_stop\) for the Claude Code session [0-9a-f-]{36}\n/,
    );
    expect(out).not.toMatch(/for task (claude|codex):|recorded for T10/);
    // the hook session and the AI SDK run are on the recoveries page, as the dashboard lists it
    const database = openLoopGuardDatabase(join(cwd, '.loopguard', 'demo.db'), { readonly: true });
    try {
      const page = await new SqliteStatusReader(database).recoveryPage({ limit: 10 });
      const steps = page.recoveries.filter((r) => r.topic === 'loop_nudge' || r.topic === 'loop_stop');
      expect(steps.map((r) => [r.action, r.taskId?.replace(/^claude:.*/, 'claude:<session>')])).toEqual([
        ['stop', 'T10.1.1'],
        ['nudge', 'T10.1.1'],
        // Codex: the repeat at the 4th call is denied (then the model's uninstall is refused)
        ['stop', 'codex:demo-codex-session'],
        ['nudge', 'codex:demo-codex-session'],
        ['stop', 'claude:<session>'],
        ['nudge', 'claude:<session>'],
      ]);
      expect(steps[4]?.metadata).toMatchObject({
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
    const body = JSON.parse(out.slice(out.indexOf('{', out.indexOf('Status (')), sessionsAt));
    expect(body).toEqual({
      running: false,
      tickCount: 41,
      loopDetection: {
        'T6.2.3': { attemptCount: 1, lastAttempt: expect.any(Number) },
        'T9.1.1': { attemptCount: 6, lastAttempt: expect.any(Number) },
      },
      breaker: { state: 'OPEN', reason: 'no_file_changes: no files changed (3 in a row, threshold 3)' },
    });
    // What a user reads: every session the demo made, in their words, as `status` says it.
    const rows = out
      .slice(sessionsAt)
      .split('\n')
      .filter((line) => /^\w[\w-]* +\| /.test(line) && !line.startsWith('agent '))
      .map((line) => line.split('|').map((cell) => cell.trim()))
      // as `status` lists them: agent, session, project, last active, what loopguard did (qa48)
      .map(([agent, session, , , summary]) => [agent, session, summary]);
    expect(
      rows.map(([agent, session, summary]) => [
        agent,
        session?.replace(/^[0-9a-f-]{36}$/, '<uuid>'),
        summary,
      ]),
    ).toEqual([
      [
        'codex',
        'demo-codex-session',
        'stopped by loopguard at call 4 (same error), 3 tool calls ran, 1 call refused, 1 nudge',
      ],
      ['claude', '<uuid>', 'stopped by loopguard at call 5 (same error), 4 tool calls ran, 1 nudge'],
      [
        'claude',
        'demo-spend-session',
        'stopped on spend at call 6 (budget reached), 6 tool calls ran, $0.504 of $0.50',
      ],
      ['ai-sdk', 'demo-ai-sdk-run', 'stopped by loopguard at call 4 (same error), 4 tool calls ran, 1 nudge'],
      ['ai-sdk', 'demo-ai-sdk-clean-run', 'no loop found, 1 tool call ran'],
      // sess68: a run its breaker paused says how to go on, as after a mid-run stop
      [
        'run',
        'demo-run-1',
        'stopped by loopguard (run paused: no files changed (3 in a row, threshold 3)) (loopguard resume demo-run-1 continues it)',
      ],
      [
        'run',
        'demo-run-0',
        'stopped by loopguard (run paused: permission denied for tool Bash (2 in a row, threshold 2)) (loopguard resume demo-run-0 continues it)',
      ],
    ]);
    const status = execFileSync(process.execPath, [bin, 'status', '--db', join('.loopguard', 'demo.db')], {
      cwd,
      encoding: 'utf8',
    });
    for (const [agent, session, summary] of rows)
      expect(status).toMatch(
        new RegExp(`^${agent} +\\| ${session} +\\| .*\\| ${escapeRegExp(summary ?? '')} *$`, 'm'),
      );
    // and a history that ends before now
    expect(out).not.toMatch(/the seed/i);
    expect(
      Math.max(
        ...Object.values(body.loopDetection as Record<string, { lastAttempt: number }>).map(
          (t) => t.lastAttempt,
        ),
      ),
    ).toBeLessThan(Date.now());
  });

  it('leaves no folder behind outside its own .loopguard/demo-files, emptied at every run', () => {
    const bin = fileURLToPath(new URL('../packages/cli/dist/bin.js', import.meta.url));
    // a temporary folder of this run's own: other test files run demos in the shared one at the same time
    const runTmp = mkdtempSync(join(tmpdir(), 'loopguard-demo-tmp-'));
    try {
      execFileSync(process.execPath, [bin, 'demo'], {
        cwd,
        encoding: 'utf8',
        env: { ...process.env, TMPDIR: runTmp },
      });
      expect(readdirSync(runTmp)).toEqual([]);
    } finally {
      rmSync(runTmp, { recursive: true, force: true });
    }
    expect(readdirSync(join(cwd, '.loopguard', 'demo-files')).sort()).toEqual([
      '.made-by-loopguard-demo', // polish66: the mark by which a later demo knows it may empty it
      // the Claude Code replays run in a temporary folder (under .loopguard its Read would be a call
      // against loopguard's own files), removed afterwards: the check above; their sessions are
      // shown in folders of their own here
      'claude-project',
      'codex-project',
      'spend-project',
      'transcripts',
    ]);
    // every session names a folder that exists, the Claude Code ones too (sess64: a deleted temporary one)
    const json = execFileSync(
      process.execPath,
      [bin, 'status', '--db', join('.loopguard', 'demo.db'), '--json'],
      {
        cwd,
        encoding: 'utf8',
      },
    );
    const sessions = (
      JSON.parse(json) as { sessions: { sessions: Array<{ agent: string; projectDir: string }> } }
    ).sessions.sessions;
    expect(sessions.filter((s) => s.agent === 'claude')).toHaveLength(2);
    expect(
      sessions.filter((s) => !existsSync(s.projectDir)).map((s) => `${s.agent} ${s.projectDir}`),
    ).toEqual([]);
  });

  it('qa50: in a repository whose project already holds sessions, records none of its own there', () => {
    const bin = fileURLToPath(new URL('../packages/cli/dist/bin.js', import.meta.url));
    const repo = mkdtempSync(join(tmpdir(), 'loopguard-demo-repo-'));
    try {
      execFileSync('git', ['init', '-q'], { cwd: repo });
      // one Claude Code call of the user's own: the project's .loopguard/state.db
      const event = {
        session_id: 'mine',
        transcript_path: join(repo, 't.jsonl'),
        cwd: repo,
        hook_event_name: 'PostToolUse',
        tool_name: 'Bash',
        tool_input: { command: 'ls' },
        tool_response: { stdout: 'a', stderr: '' },
        tool_use_id: 'toolu_1',
      };
      execFileSync(process.execPath, [bin, 'hook', 'claude'], {
        cwd: repo,
        input: JSON.stringify(event),
        env: { ...process.env, CLAUDE_PROJECT_DIR: repo, LOOPGUARD_HOOK: '' },
      });
      // on main: "internal error: cannot open … codex-project/.loopguard/state.db", exit code 1, the
      // demo's Codex session walked up from .loopguard/demo-files into the user's database
      execFileSync(process.execPath, [bin, 'demo'], { cwd: repo, encoding: 'utf8' });
      const database = openLoopGuardDatabase(join(repo, '.loopguard', 'state.db'));
      try {
        const sessions = database.db.prepare('SELECT session_id FROM hook_sessions').all();
        expect(sessions).toEqual([{ session_id: 'mine' }]);
      } finally {
        database.close();
      }
    } finally {
      rmSync(repo, { recursive: true, force: true });
    }
  });
});
