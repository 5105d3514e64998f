import { join } from 'node:path';
import { openLoopGuardDatabase, SqliteHookSessionStore } from '@loopguard/sqlite';
import { guardSession } from './guardSession.js';
import { readHookConfig } from './hookConfig.js';
import type { HookAgent, HookEvent, HookReply } from './hookEvent.js';

/**
 * Guards one event in its project: reads the `hook` section of the project's configuration, opens
 * `.loopguard/state.db` (created on first use; a lock held past `lockTimeoutMs` is an error, not a
 * wait), and runs {@link guardSession} in one transaction with the nudge or stop entry it records.
 * @throws on any failure: the caller fails open.
 */
export async function guardProject(
  agent: HookAgent,
  event: HookEvent,
  now: () => number,
): Promise<HookReply> {
  const config = await readHookConfig(event.projectDir);
  if (!config.enabled) return { kind: 'silent' };
  const database = openLoopGuardDatabase(join(event.projectDir, '.loopguard', 'state.db'), {
    createDirectory: true,
    busyTimeoutMs: config.lockTimeoutMs,
    busyRetry: { retries: 0, initialDelayMs: 0 },
  });
  try {
    const store = new SqliteHookSessionStore({
      db: database.db,
      busyRetry: { retries: 0, initialDelayMs: 0 },
    });
    return store.update({ agent, sessionId: event.sessionId, projectDir: event.projectDir }, (session) =>
      guardSession(event, session, {
        agent,
        detector: config.detector,
        record: (entry) => database.stateMachine.addContextEntry(entry),
        now,
      }),
    );
  } finally {
    database.close();
  }
}
