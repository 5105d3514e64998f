import type { SessionView } from '@loopguard/core/internal';
import { formatTable } from './formatTable.js';
import { localTime, timeZoneName } from './localTime.js';
import { printable } from './terminalText.js';
import { wrapped } from './wrapText.js';

/** The sessions table: newest first, one line of what loopguard did to each. */
function sessionTable(sessions: readonly SessionView[]): string {
  const rows = sessions.map((s) => [
    s.agent,
    sessionName(s),
    s.projectDir,
    localTime(s.lastActive),
    s.summary,
  ]);
  // nothing cut: the ids are what `status --session` takes, the summary is the sentence every door prints
  return formatTable(
    ['agent', 'session', 'project', `last active (${timeZoneName()})`, 'what loopguard did'],
    rows,
    Number.POSITIVE_INFINITY,
  );
}

/** The session's id, and whose subagent it is. */
function sessionName(s: SessionView): string {
  return s.parentSessionId === null ? s.sessionId : `${s.sessionId} (subagent of ${s.parentSessionId})`;
}

/**
 * The sessions for a terminal of `columns` (qa47): the table when it fits, else each session in
 * two lines, its agent, id and time (and its project where they differ), then what loopguard did,
 * wrapped within the width (a subagent's run: whose it is on a line between them). Nothing is
 * cut: the ids are what `status --session` takes. `status`'s list, and `demo`'s at its end.
 * @param columns - the terminal's width; `undefined` (a pipe, a file): the table.
 */
export function sessionList(sessions: readonly SessionView[], columns: number | undefined): string {
  const table = sessionTable(sessions);
  if (columns === undefined || table.split('\n').every((line) => line.length <= columns)) return table;
  const oneProject = new Set(sessions.map((s) => s.projectDir)).size === 1;
  const agentWidth = Math.max('agent'.length, ...sessions.map((s) => s.agent.length));
  // a subagent's parent goes on a line of its own (qa54: two ids side by side passed 80 columns)
  const idWidth = Math.max('session'.length, ...sessions.map((s) => s.sessionId.length));
  const zone = `last active (${timeZoneName()})`;
  const times = sessions.map((s) => localTime(s.lastActive));
  const timeWidth = Math.max(zone.length, ...times.map((time) => time.length));
  const head = (agent: string, id: string, time: string) =>
    `${agent.padEnd(agentWidth)}  ${id.padEnd(idWidth)}  ${time}`;
  // the project beside the time when every row holds it, else on a line of its own (qa48: a long
  // path ran past the terminal's edge, which cut it mid-word)
  const besideWidth = agentWidth + idWidth + timeWidth + 6;
  const beside =
    !oneProject &&
    besideWidth + Math.max('project'.length, ...sessions.map((s) => s.projectDir.length)) <= columns;
  const lines = [
    printable(
      beside
        ? `${head('agent', 'session', zone.padEnd(timeWidth))}  project`
        : head('agent', 'session', zone),
    ),
  ];
  sessions.forEach((s, i) => {
    const time = times[i] ?? '';
    lines.push(
      printable(
        beside
          ? `${head(s.agent, s.sessionId, time.padEnd(timeWidth))}  ${s.projectDir}`.trimEnd()
          : head(s.agent, s.sessionId, time),
      ),
    );
    if (s.parentSessionId !== null) lines.push(printable(`  subagent of ${s.parentSessionId}`));
    if (!oneProject && !beside && s.projectDir !== '') lines.push(printable(`  ${s.projectDir}`));
    lines.push(...wrapped(printable(s.summary), '  ', columns));
  });
  return lines.join('\n');
}
