import { existsSync } from 'node:fs';
import type { SessionFilter } from './sessionFilter.js';
import type { TranscriptPlace } from './transcriptPlaces.js';

/** What a scan that reports no session knew: where it looked, what it read, what it filtered. */
export interface EmptyScan {
  /** The agents' places when no path was given; `undefined` with paths. */
  places?: TranscriptPlace[];
  /** The paths given. */
  paths: readonly string[];
  /** Sessions read before the filter. */
  read: number;
  /** The filter asked for. */
  filter: SessionFilter;
}

const RETENTION =
  'Claude Code deletes sessions older than 30 days unless `cleanupPeriodDays` in its settings.json ' +
  '(~/.claude/settings.json) says otherwise.';

function filterText(filter: SessionFilter): string {
  const parts: string[] = [];
  if (filter.since !== undefined || filter.until !== undefined) {
    const zone = filter.timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
    parts.push(`started ${filter.since ?? '…'} to ${filter.until ?? '…'} (${zone})`);
  }
  if (filter.project !== undefined) parts.push(`in project ${filter.project}`);
  return parts.join(' and ');
}

/**
 * Why a scan found no session, for a person: the places it looked in (and which exist), or the
 * sessions the filter left out, and what keeps transcripts from being there.
 */
export function emptyScanHint(scan: EmptyScan): string {
  if (scan.read > 0) {
    return `${scan.read} session${scan.read === 1 ? '' : 's'} read, none ${filterText(scan.filter)}.`;
  }
  if (scan.places === undefined) {
    return (
      `No sessions in ${scan.paths.join(', ')}: scan reads .jsonl transcripts, Gemini CLI chats ` +
      `(chats/session-*.json) and \`loopguard run\` output logs. ${RETENTION}`
    );
  }
  const width = Math.max(...scan.places.map((place) => place.agent.length));
  const lines = scan.places.map(
    (place) => `  ${place.agent.padEnd(width)}  ${place.path}${existsSync(place.path) ? '' : ' (not there)'}`,
  );
  return [
    'No sessions found. loopguard scan looked in:',
    ...lines,
    `${RETENTION} Other folders: \`loopguard scan <path>\`, or CLAUDE_CONFIG_DIR (comma-separated), CODEX_HOME, GEMINI_CLI_HOME.`,
  ].join('\n');
}
