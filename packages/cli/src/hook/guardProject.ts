import { guardSession } from './guardSession.js';
import { readHookConfig } from './hookConfig.js';
import { openHookDatabase } from './hookDatabase.js';
import type { HookAgent, HookEvent, HookReply } from './hookEvent.js';
import { noopLogger } from './noopLogger.js';

/**
 * Guards one event in its project: reads the `hook` section of the project's configuration, opens
 * `.loopguard/state.db` (created on first use; a lock held past `lockTimeoutMs` is an error, not a
 * wait), and runs {@link guardSession} in one transaction with the nudge or stop entry it records.
 * @param open - how the database is opened: once per call by default; the MCP server keeps
 *   its connections ({@link openHookDatabase}'s signature).
 * @throws on any failure: the caller fails open.
 */
export async function guardProject(
  agent: HookAgent,
  event: HookEvent,
  now: () => number,
  open: typeof openHookDatabase = openHookDatabase,
): Promise<HookReply> {
  const config = await readHookConfig(event.projectDir);
  if (!config.enabled) return { kind: 'silent' };
  const database = open(event.projectDir, config.lockTimeoutMs);
  let failed = true;
  try {
    const reply = database.sessions.update(
      { agent, sessionId: event.sessionId, projectDir: event.projectDir },
      (session) =>
        guardSession(event, session, {
          agent,
          detector: { ...config.detector, logger: noopLogger },
          record: (entry) => database.record(entry),
          now,
        }),
    );
    failed = false;
    return reply;
  } finally {
    database.close(failed);
  }
}
