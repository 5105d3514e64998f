/**
 * A database an earlier loopguard wrote, in the user's words (qa54): a read-only door (`status`,
 * `serve`, `recoveries`, `runs`) does not migrate it (it writes in no folder a hook has not
 * checked); the hooks and `run` do when they next open it. `undefined` for any other message. The
 * versions come from `assertSchemaCurrent`'s own message (`schema version 14, older than 15`).
 * @example olderSchema('… has schema version 14, older than 15; …'); // 'written by an earlier loopguard (…'
 */
export function olderSchema(message: string): string | undefined {
  const versions = /schema version (\d+), older than (\d+)/.exec(message);
  if (versions === null) return undefined;
  return `written by an earlier loopguard (schema version ${versions[1]}; this one reads ${versions[2]}): the next tool call loopguard's hooks guard in this project, or the next loopguard run here, brings it up to date`;
}
