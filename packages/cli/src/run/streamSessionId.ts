/**
 * The agent session a live output's event names: Claude Code's and Gemini CLI's `session_id`,
 * Codex's `thread_id`; `undefined` when it names none. One rule for `loopguard run`'s stream
 * watcher (the session its stop names) and `scan`'s reading of the same output.
 * @example streamSessionId({ type: 'thread.started', thread_id: 't1' }); // 't1'
 */
export function streamSessionId(event: Record<string, unknown>): string | undefined {
  const id = event.session_id ?? event.thread_id;
  return typeof id === 'string' ? id : undefined;
}
