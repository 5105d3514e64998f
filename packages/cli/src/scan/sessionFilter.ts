import { basename, dirname } from 'node:path';
import { dayFormat, localDay } from './days.js';
import { geminiFolder } from './geminiFolder.js';
import type { ScannedSession } from './scannedSession.js';

/** Which sessions a scan reports (`--since`, `--until`, `--project`); all when empty. */
export interface SessionFilter {
  /** First day, `YYYY-MM-DD`, inclusive, in the local time zone. */
  since?: string;
  /** Last day, `YYYY-MM-DD`, inclusive, in the local time zone. */
  until?: string;
  /**
   * A project: its full path, its last folder name, or the name of the folder its file is in
   * (ccusage's project names); the project loopguard keeps a session in and the folder it started in both match.
   */
  project?: string;
  /** The IANA time zone of the days. @default the machine's (`TZ`) */
  timeZone?: string;
}

/** The name Claude Code files a project's sessions under: every character but letters and digits a `-`. */
const claudeFolderName = (project: string) => project.replace(/[^a-zA-Z0-9]/g, '-');

/**
 * The test of whether a session passes `filter`: its start's local day within `since`..`until` (a session with
 * no known start does not pass a date filter), and its project named by `project`.
 */
export function sessionFilter(filter: SessionFilter): (session: ScannedSession) => boolean {
  const days = dayFormat(filter.timeZone);
  return (session) => matches(session, filter, days);
}

function matches(session: ScannedSession, filter: SessionFilter, days: Intl.DateTimeFormat): boolean {
  if (filter.since !== undefined || filter.until !== undefined) {
    const day = session.startedAt === null ? undefined : localDay(session.startedAt, days);
    if (day === undefined) return false;
    if (filter.since !== undefined && day < filter.since) return false;
    if (filter.until !== undefined && day > filter.until) return false;
  }
  if (filter.project !== undefined) {
    const wanted = filter.project.replace(/\/+$/, '');
    if (basename(dirname(session.file)) === wanted || geminiFolder(session.file) === wanted) return true;
    // loopguard's project (status's) or the folder the agent started in, by either name
    return [session.project, session.startedIn].some(
      (project) =>
        typeof project === 'string' &&
        (project === wanted || basename(project) === wanted || claudeFolderName(project) === wanted),
    );
  }
  return true;
}
