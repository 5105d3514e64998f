/**
 * A database an earlier loopguard wrote, in the user's words (qa54): what `status` prints and the
 * Claude Code status line says (story56). The read-only doors do not migrate it; the hooks and
 * `run` do when they next open it.
 * @example earlierSchemaText(14, 15); // 'written by an earlier loopguard (schema version 14; this one reads 15): …'
 */
export function earlierSchemaText(found: number, reads: number): string {
  return `written by an earlier loopguard (schema version ${found}; this one reads ${reads}): the next tool call loopguard's hooks guard in this project, or the next loopguard run here, brings it up to date`;
}
