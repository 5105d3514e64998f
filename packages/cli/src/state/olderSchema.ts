/**
 * A database an earlier loopguard wrote, in the user's words (qa54): what the read-only doors
 * (`status`, `serve`, `recoveries`, `runs`) and the Claude Code status line say (story56). They do
 * not migrate it (they write in no folder a hook has not checked); the hooks and `run` do when they
 * next open it.
 * @example earlierSchemaText(14, 15); // 'written by an earlier loopguard (schema version 14; this one reads 15): …'
 */
export function earlierSchemaText(found: number, reads: number): string {
  return `written by an earlier loopguard (schema version ${found}; this one reads ${reads}): the next tool call loopguard's hooks guard in this project, or the next loopguard run here, brings it up to date`;
}

/**
 * {@link earlierSchemaText} for the message `assertSchemaCurrent` refused a database with
 * (`schema version 14, older than 15`); `undefined` for any other message.
 * @example olderSchema('… has schema version 14, older than 15; …'); // 'written by an earlier loopguard (…'
 */
export function olderSchema(message: string): string | undefined {
  const versions = /schema version (\d+), older than (\d+)/.exec(message);
  if (versions === null) return undefined;
  return earlierSchemaText(Number(versions[1]), Number(versions[2]));
}
