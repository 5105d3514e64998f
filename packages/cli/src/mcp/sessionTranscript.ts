import { realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, normalize } from 'node:path';
import { agentHomeOf, placedFolder } from '../files/agentHome.js';

/**
 * Where Claude Code keeps a session's transcript, and whether an event's `transcript_path` is
 * that file: what loopguard's MCP server trusts to count a session's spend (docs/hooks.md, "Why
 * it is safe"). Claude Code 2.1.330 writes `<config dir>/projects/<folder>/<session_id>.jsonl`, the
 * config dir being `CLAUDE_CONFIG_DIR` when set, else `~/.claude`, and the folder the project
 * directory with every character but `[a-zA-Z0-9]` made `-`, cut at 200 characters and followed by
 * `-<hash>` when longer (read from its bundled code).
 */

/** Longest folder name Claude Code writes whole; a longer one is cut here and given a hash. */
const FOLDER_CHARS = 200;

/**
 * Claude Code's folder of transcripts: `$CLAUDE_CONFIG_DIR/projects`, else `~/.claude/projects`
 * ({@link agentHomeOf}); undefined when that folder is relative to where Claude Code started, so
 * that no transcript is trusted.
 */
export function claudeProjectsDir(env: NodeJS.ProcessEnv): string | undefined {
  return placedFolder(() => join(agentHomeOf('claude', env), 'projects'));
}

/**
 * Whether `folder` is the name Claude Code gives the transcripts' folder of `projectDir`: the path
 * as given or with its links resolved (the name of a long path is checked up to its hash).
 */
function isProjectFolder(folder: string, projectDir: string): boolean {
  const names = new Set([projectDir]);
  try {
    names.add(realpathSync(projectDir));
  } catch {
    // no such folder: only the name as given
  }
  for (const name of names) {
    const encoded = name.replace(/[^a-zA-Z0-9]/g, '-');
    if (folder === encoded) return true;
    if (encoded.length > FOLDER_CHARS && folder.startsWith(`${encoded.slice(0, FOLDER_CHARS)}-`)) return true;
  }
  return false;
}

/**
 * Whether `path` is the transcript Claude Code keeps for session `sessionId` of `projectDir`:
 * `<claudeProjectsDir(env)>/<the project's folder>/<sessionId>.jsonl`, written without `..` or
 * doubled separators. Only the path is checked (the file need not exist yet).
 * @example isSessionTranscript('/home/u/.claude/projects/-work-app/s1.jsonl', 's1', '/work/app', { HOME: '/home/u' }); // true
 */
export function isSessionTranscript(
  path: string,
  sessionId: string,
  projectDir: string,
  env: NodeJS.ProcessEnv,
): boolean {
  if (!isAbsolute(path) || normalize(path) !== path) return false;
  const folder = dirname(path);
  const projects = claudeProjectsDir(env);
  return (
    projects !== undefined &&
    basename(path) === `${sessionId}.jsonl` &&
    dirname(folder) === projects &&
    isProjectFolder(basename(folder), projectDir)
  );
}
