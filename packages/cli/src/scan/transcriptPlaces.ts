import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import { agentHomeOf, placedFolder, userHomeOf } from '../files/agentHome.js';

/** One place where an agent keeps its sessions. */
export interface TranscriptPlace {
  /** Who writes there (`Claude Code`, `Codex`, `Gemini CLI`, `loopguard run`). */
  agent: string;
  /** The folder. */
  path: string;
}

/**
 * `CLAUDE_CONFIG_DIR` as ccusage reads it, not as Claude Code does (deliberately: `scan` finds
 * what ccusage finds): comma-separated folders, each trimmed and holding `projects/` (or being
 * it), an empty one as unset; unset, `$XDG_CONFIG_HOME/claude/projects` and Claude Code's own.
 */
function claudePlaces(env: NodeJS.ProcessEnv): string[] {
  const configured = (env.CLAUDE_CONFIG_DIR ?? '')
    .split(',')
    .map((dir) => dir.trim())
    .filter((dir) => dir !== '');
  if (configured.length === 0) {
    const home = placedFolder(() => userHomeOf('claude', env));
    if (home === undefined) return [];
    const xdg = env.XDG_CONFIG_HOME || join(home, '.config');
    return [join(xdg, 'claude', 'projects'), join(home, '.claude', 'projects')];
  }
  return configured.map((dir) =>
    basename(dir) === 'projects' && !existsSync(join(dir, 'projects')) ? dir : join(dir, 'projects'),
  );
}

/**
 * Every place the agents keep their sessions on this machine, whether it exists or not, with the
 * same variables as the CLIs themselves and ccusage:
 * - Claude Code: each folder of `$CLAUDE_CONFIG_DIR` (a comma-separated list, as ccusage reads it)
 *   `/projects`; unset: `$XDG_CONFIG_HOME/claude/projects` (default `~/.config/claude/projects`) and
 *   `~/.claude/projects`;
 * - Codex: `$CODEX_HOME/sessions` and `archived_sessions` (default `~/.codex`);
 * - Gemini CLI: `$GEMINI_CLI_HOME/.gemini/tmp` (default `~/.gemini/tmp`), and ccusage's
 *   `$GEMINI_DATA_DIR` when set;
 * - `loopguard run`: `<cwd>/.loopguard/runs`.
 */
export function transcriptPlaces(env: NodeJS.ProcessEnv, cwd: string): TranscriptPlace[] {
  // a folder the CLI reads relative to where it started is left out, not guessed: `scan <path>` reads it
  const codex = placedFolder(() => agentHomeOf('codex', env));
  const gemini = placedFolder(() => agentHomeOf('gemini', env));
  const places: TranscriptPlace[] = [
    ...claudePlaces(env).map((path) => ({ agent: 'Claude Code', path })),
    ...(codex === undefined
      ? []
      : ['sessions', 'archived_sessions'].map((name) => ({ agent: 'Codex', path: join(codex, name) }))),
    ...(gemini === undefined ? [] : [{ agent: 'Gemini CLI', path: join(gemini, 'tmp') }]),
    ...(env.GEMINI_DATA_DIR ? [{ agent: 'Gemini CLI', path: env.GEMINI_DATA_DIR }] : []),
    { agent: 'loopguard run', path: join(cwd, '.loopguard', 'runs') },
  ];
  const seen = new Set<string>();
  return places.filter((place) => !seen.has(place.path) && seen.add(place.path));
}

/** The folders of {@link transcriptPlaces} that exist: what `scan` reads with no path. */
export function defaultTranscriptPlaces(env: NodeJS.ProcessEnv, cwd: string): string[] {
  return transcriptPlaces(env, cwd)
    .map((place) => place.path)
    .filter((path) => existsSync(path));
}
