import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '@loopguard/core';
import {
  type LoopGuardDatabase,
  openLoopGuardDatabase,
  SqliteHookSessionStore,
  SqliteSpendStore,
  SqliteStatusReader,
} from '@loopguard/sqlite';

/** The sessions {@link hooksOnlyDatabase} writes, by id. */
export const HOOK_SESSIONS = {
  stopped: 'a1b2c3d4-stopped',
  spent: 'e5f6a7b8-spent',
  nudged: 'c9d0e1f2-nudged',
  clean: 'a3b4c5d6-clean',
} as const;

/**
 * A database written only through the hooks' stores, as `loopguard hook` writes it (no task, no
 * attempt): a Claude Code session nudged at call 3 and stopped at call 4, a Gemini CLI session
 * stopped on spend ($0.52 of $0.50), a Codex session nudged twice, and a clean Claude Code session.
 * Every entry falls within one minute, `ago` ms before the wall clock (the view judges `running`
 * by it); `moreCleanSessions` clean Claude Code sessions come before them (to page through).
 */
export function hooksOnlyDatabase(
  ago = 3_600_000,
  moreCleanSessions = 0,
): {
  database: LoopGuardDatabase;
  reader: SqliteStatusReader;
  clock: ManualClock;
  cleanup(): void;
} {
  const dir = mkdtempSync(join(tmpdir(), 'loopguard-hooks-only-'));
  const clock = new ManualClock(Date.now() - ago);
  const database = openLoopGuardDatabase(join(dir, 'state.db'), { clock });
  const hooks = new SqliteHookSessionStore({ db: database.db, clock });
  const session = (
    agent: 'claude' | 'gemini' | 'codex',
    sessionId: string,
    counts: { toolCalls: number; nudges?: number; stops?: number },
  ) =>
    hooks.update({ agent, sessionId, projectDir: '/home/dev/shop' }, () => ({
      next: {
        snapshot: '{}',
        lastResults: '[]',
        steps: counts.toolCalls * 2,
        toolCalls: counts.toolCalls,
        parentSessionId: null,
        agentType: null,
        nudges: counts.nudges ?? 0,
        stops: counts.stops ?? 0,
        enabled: true,
      },
      result: null,
    }));
  // as the hooks write it: each evidence's step index beside its tool call
  const failing = (call: number) => ({
    step: call * 2 - 1,
    call,
    tool: 'Bash',
    action: 'npm test',
    output: 'Error: Cannot find module ./cart',
    error: true,
  });
  const entry = (topic: string, agent: string, sessionId: string, metadata: Record<string, unknown>) => {
    database.stateMachine.addContextEntry({
      entryType: topic.endsWith('stop') ? 'decision' : 'learning',
      topic,
      content:
        topic === 'loop_stop'
          ? 'Stopped (same_error): the loop went on after the nudge; `npm test` failed with the same error 4 times.'
          : topic === 'loop_nudge'
            ? 'Loop detected (same_error): `npm test` failed with the same error 3 times. Read the error line and change the code it names.'
            : topic === 'spend_stop'
              ? 'loopguard: this session reached its budget ($0.52 of $0.50).'
              : 'loopguard: you have used $0.41 of $0.50 on this session (82 %).',
      relatedTasks: [`${agent}:${sessionId}`],
      metadata: { ...metadata, agent, sessionId, runId: sessionId, projectDir: '/home/dev/shop' },
    });
    clock.advance(4_000);
  };

  for (let i = 0; i < moreCleanSessions; i++) {
    session('claude', `older-${String(i).padStart(2, '0')}`, { toolCalls: i + 1 });
    clock.advance(1_000);
  }
  session('claude', HOOK_SESSIONS.clean, { toolCalls: 9 });
  clock.advance(4_000);
  session('codex', HOOK_SESSIONS.nudged, { toolCalls: 7, nudges: 2 });
  entry('loop_nudge', 'codex', HOOK_SESSIONS.nudged, {
    loopType: 'repeated_action',
    toolCall: 3,
    evidence: [1, 2, 3].map(failing),
  });
  entry('loop_nudge', 'codex', HOOK_SESSIONS.nudged, {
    loopType: 'oscillation',
    toolCall: 6,
    evidence: [4, 5, 6].map(failing),
  });
  session('gemini', HOOK_SESSIONS.spent, { toolCalls: 12 });
  entry('spend_warning', 'gemini', HOOK_SESSIONS.spent, { scope: 'session', reason: 'share', toolCall: 9 });
  // stored as the spend guard writes them: a float's noise in dollars, the time in epoch ms
  entry('spend_stop', 'gemini', HOOK_SESSIONS.spent, {
    scope: 'session',
    reason: 'cap',
    toolCall: 12,
    spent: { tokens: 52_000, costUsd: 0.5039999999999999 },
    caps: { maxCostUsd: 0.5 },
    detectedAt: clock.now(),
  });
  const scope = `session:gemini:${HOOK_SESSIONS.spent}`;
  new SqliteSpendStore({ db: database.db, clock }).update([scope], () => ({
    next: new Map([
      [
        scope,
        {
          ledger: { totals: { tokens: 52_000, costUsd: 0.52, unpricedTokens: 0 } },
          offset: 10,
          caps: { maxCostUsd: 0.5 },
        },
      ],
    ]),
    result: null,
  }));
  session('claude', HOOK_SESSIONS.stopped, { toolCalls: 4, nudges: 1, stops: 1 });
  entry('loop_nudge', 'claude', HOOK_SESSIONS.stopped, {
    loopType: 'same_error',
    toolCall: 3,
    evidence: [1, 2, 3].map(failing),
  });
  entry('loop_stop', 'claude', HOOK_SESSIONS.stopped, {
    loopType: 'same_error',
    since: 1,
    step: 7,
    toolCall: 4,
    followsNudge: true,
    evidence: [1, 2, 3, 4].map(failing),
  });
  return {
    database,
    reader: new SqliteStatusReader(database),
    clock,
    cleanup: () => {
      database.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
