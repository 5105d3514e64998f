import { guardSession } from './guardSession.js';
import { readHookConfig } from './hookConfig.js';
import { openHookDatabase } from './hookDatabase.js';
import type { HookAgent, HookEvent, HookReply } from './hookEvent.js';
import { noopLogger } from './noopLogger.js';

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
  const database = openHookDatabase(event.projectDir, config.lockTimeoutMs);
  try {
    return database.sessions.update(
      { agent, sessionId: event.sessionId, projectDir: event.projectDir },
      (session) =>
        guardSession(event, session, {
          agent,
          detector: { ...config.detector, logger: noopLogger },
          record: (entry) => database.record(entry),
          now,
        }),
    );
  } finally {
    database.close();
  }
}
