import { loopKindWords } from '@loopguard/core/internal';
import { formatTable } from '../terminal/formatTable.js';
import { printable } from '../terminal/terminalText.js';
import { withinColumns, wrapped } from '../terminal/wrapText.js';
import { dayFormat, localDay } from './days.js';
import { sessionsCounted } from './joinedChats.js';
import { formatMoney } from './money.js';
import type { ScannedLoop } from './SessionScan.js';
import type { ScannedSession } from './scannedSession.js';
import { isStopped, type ScanReport, sessionWaste } from './scanReport.js';
import { UNGUARDED_HEADING, unguardedSessions } from './unguardedSessions.js';

/** Rows of each table at most: the worst ones; `--json` and `--html` have them all. */
const MAX_ROWS = 25;

const count = (n: number) => n.toLocaleString('en-US');

/** `` (3 refused)`` or `''`: of the calls after a stop, those loopguard refused before they ran. */
const refusedText = (denied: number) => (denied === 0 ? '' : ` (${count(denied)} refused)`);

/** Waste in words: `7 calls, 1,204 tokens, $0.02`; `3 calls (3 refused), …`. */
function wasteText(
  toolCalls: number,
  denied: number,
  tokens: number | null,
  usd: number | undefined,
): string {
  const parts = [`${count(toolCalls)} call${toolCalls === 1 ? '' : 's'}${refusedText(denied)}`];
  if (tokens !== null) {
    parts.push(`${count(tokens)} tokens`);
    if (usd !== undefined) parts.push(formatMoney(usd));
  }
  return parts.join(', ');
}

/** The dollars a session wasted after its stops: `--price` for every token, else each loop's per-model cost. */
function wastedUsd(
  session: ScannedSession,
  tokens: number | null,
  price: number | undefined,
): number | undefined {
  if (price !== undefined) return tokens === null ? undefined : (tokens * price) / 1_000_000;
  const costs = session.loops.map((loop) => loop.wastedCost);
  return costs.some((cost) => cost === undefined || cost === null)
    ? undefined
    : costs.reduce<number>((a, b) => a + (b ?? 0), 0);
}

/**
 * The per-model cost and the budget in words (nothing with `--price` or without a price book), as
 * the terminal and the HTML page print them.
 */
export function costLines(totals: ScanReport['totals']): string[] {
  if (totals.costUsd === undefined) return [];
  const lines = [
    `Priced per model: ${formatMoney(totals.costUsd)} in all` +
      (totals.unpricedTokens
        ? `; the cost of ${count(totals.unpricedTokens)} tokens is unknown (no price for their model).`
        : '.'),
  ];
  for (const note of totals.projectPrices ?? []) lines.push(`${note}.`);
  const budget = totals.budget;
  if (budget !== undefined) {
    lines.push(
      `A budget of ${formatMoney(budget.usd)} per session would have stopped ${count(budget.sessionsStopped)} session${budget.sessionsStopped === 1 ? '' : 's'} and saved ${formatMoney(budget.savedUsd)}.`,
    );
  }
  return lines;
}

/**
 * What the sessions spent after their stops: `4 tool calls, 65,240 tokens ($0.20) spent after the stop`, or `nothing spent after the stop`.
 * @param stop - what the stop was. @default 'the stop'
 */
function afterStopText(sessions: ScannedSession[], price: number | undefined, stop = 'the stop'): string {
  let calls = 0;
  let denied = 0;
  let tokens: number | null = null;
  let usd: number | undefined = 0;
  for (const session of sessions) {
    const waste = sessionWaste(session);
    calls += waste.toolCalls;
    denied += waste.deniedCalls;
    if (waste.tokens !== null) tokens = (tokens ?? 0) + waste.tokens;
    const dollars = wastedUsd(session, waste.tokens, price);
    usd = usd === undefined || dollars === undefined ? undefined : usd + dollars;
  }
  if (calls === 0 && !tokens) return `nothing spent after ${stop}`;
  const money = usd === undefined || tokens === null ? '' : ` (${formatMoney(usd)})`;
  return `${count(calls)} tool call${calls === 1 ? '' : 's'}${refusedText(denied)}${tokens === null ? '' : `, ${count(tokens)} tokens`}${money} spent after ${stop}`;
}

/**
 * Each session loopguard's spend guard stopped, named as `status` names it (`claude 3f1c…`, a
 * subagent's `(subagent of …)`) with what `status` says of it: its record's sentence where the
 * record holds the spend stop, else the transcript's stop in `status`'s words (`stopped on spend at
 * call 4`), so that no door leaves such a session unnamed (doors71).
 */
function spendStopLines(sessions: readonly ScannedSession[]): string[] {
  return sessions.flatMap((session) => {
    const recorded = session.record?.stop?.on === 'spend' ? session.record.summary : undefined;
    const said =
      recorded ??
      (session.spendStop === undefined ? undefined : `stopped on spend at call ${session.spendStop.call}`);
    if (said === undefined) return [];
    const parent = session.parentSessionId === undefined ? '' : ` (subagent of ${session.parentSessionId})`;
    return [printable(`  ${session.agent} ${session.sessionId}${parent}: ${said}`)];
  });
}

const sessionsText = (n: number) => `${count(n)} session${n === 1 ? '' : 's'}`;

/**
 * The loops in a person's words: the sessions loopguard stopped (its hooks, or `run`'s stream
 * watcher, by its record), those the replay would
 * have stopped (their hooks were not installed), and those that looped where loopguard was off
 * (`unguarded`: listed under {@link UNGUARDED_HEADING}; the user or their project switched it off,
 * so "would have stopped" is not what loopguard there does), each with what was spent after the stop.
 */
function loopLines(report: ScanReport, price: number | undefined): string[] {
  // loopguard's record says what it did where the transcript holds no stop of its own (recordDiffers says so)
  const byRecord = (session: ScannedSession) => session.record?.stop?.on === 'loop';
  const looped = report.sessions.filter((session) => session.loops.some(isStopped) || byRecord(session));
  const byHooks = looped.filter(
    (session) => session.loops.some((loop) => loop.loopguard === 'stopped') || byRecord(session),
  );
  const offThere = looped.filter((session) => !byHooks.includes(session) && session.unguarded !== undefined);
  const byReplay = looped.filter((session) => !byHooks.includes(session) && !offThere.includes(session));
  if (looped.length === 0) return ['No session looped long enough for loopguard to stop it.'];
  const lines: string[] = [];
  if (byReplay.length > 0) {
    const them = byReplay.length === 1 ? 'it' : 'them';
    lines.push(
      `${sessionsText(byReplay.length)} looped where loopguard would have stopped ${them}: ${afterStopText(byReplay, price)}.`,
    );
  }
  if (offThere.length > 0) {
    const them = offThere.length === 1 ? 'it' : 'them';
    lines.push(
      `${sessionsText(offThere.length)} looped while loopguard was off for ${them} (see "Not guarded" below): ${afterStopText(offThere, price, "the replay's stop")}.`,
    );
  }
  if (byHooks.length > 0) {
    // a Gemini CLI subagent's chat is its session's stop: its waste is said, not a session more
    const stopped = sessionsCounted(report.sessions)(byHooks);
    lines.push(`loopguard stopped ${sessionsText(stopped)} in a loop: ${afterStopText(byHooks, price)}.`);
  }
  return lines;
}

/**
 * Whether loopguard stopped the loop where it was stopped: the transcript holds loopguard's stop
 * there, or its record does where the transcript holds none (the terminal's and the page's rule).
 */
export function stoppedByLoopguard(loop: ScannedLoop, session: ScannedSession): boolean {
  const recorded = session.record?.stop;
  return (
    loop.loopguard === 'stopped' ||
    (recorded?.on === 'loop' &&
      recorded.call === (loop.stopCall ?? loop.endCall) &&
      !session.loops.some((l) => l.loopguard === 'stopped'))
  );
}

/** Where a loop was stopped, in tool calls: `call 4`, `call 4 (by loopguard)` ({@link stoppedByLoopguard}). */
function stopText(loop: ScannedLoop, session: ScannedSession): string {
  return `call ${loop.stopCall ?? loop.endCall}${stoppedByLoopguard(loop, session) ? ' (by loopguard)' : ''}`;
}

/** The session's day in the scan's time zone: the day `--since` and `--until` count it on (qa47). */
const dateOf = (session: ScannedSession, days: Intl.DateTimeFormat) =>
  (session.startedAt === null ? undefined : localDay(session.startedAt, days)) ?? '-';
const kindsOf = (session: ScannedSession, stopped: boolean) => [
  // in words (`same error`), as `status` says them; --json keeps the code (doors67)
  ...new Set(
    session.loops.filter((loop) => isStopped(loop) === stopped).map((loop) => loopKindWords(loop.kind)),
  ),
];

/**
 * A table for a terminal of `columns` (qa54): as it is where it fits (and for a pipe or a file,
 * `columns` undefined: scripts read the table), else each row in a few lines, `lines(row)`'s first
 * as it is and the others indented and wrapped between words, as `status` lays out its sessions.
 */
function fitted(
  headers: string[],
  rows: string[][],
  columns: number | undefined,
  lines: (row: string[]) => string[],
): string {
  const table = formatTable(headers, rows);
  if (columns === undefined || table.split('\n').every((line) => line.length <= columns)) return table;
  return rows
    .flatMap((row) =>
      lines(row).flatMap((line, i) =>
        i === 0 ? [printable(line)] : wrapped(printable(line), '  ', columns),
      ),
    )
    .join('\n');
}

/**
 * A row's head in the narrow layout: the agent (padded to the longest agent's name, so that the
 * ids line up), the session's id (what `status --session` takes) and its day, a subagent's session
 * (`parent`, on a line of its own as `status` puts it), then its project.
 */
const headLines = ([project, date, agent, session]: string[], parent = '') => [
  `${(agent ?? '').padEnd('claude'.length)}  ${session}  ${date}`,
  ...(parent === '' ? [] : [`subagent of ${parent}`]),
  `${project}`,
];

/**
 * A table's `subagent of` column, last, where one of its rows is a subagent's run: the id of the
 * session it belongs to, as `status` and the dashboard name it (codex64); no column otherwise.
 */
function withSubagentColumn(
  headers: string[],
  rows: string[][],
  parents: ReadonlyArray<string | undefined>,
): { headers: string[]; rows: string[][] } {
  if (parents.every((parent) => parent === undefined)) return { headers, rows };
  return { headers: [...headers, 'subagent of'], rows: rows.map((row, i) => [...row, parents[i] ?? '']) };
}

/**
 * The scan for a person: totals on top, then the sessions that looped, worst first (project, date,
 * agent, the session's id as `status --session` takes it, kind, waste, one line of evidence), then
 * the loops that got a nudge and no stop.
 * @param price - cost per million tokens (`--price`), for the money column.
 * @param timeZone - the days' IANA time zone (`--timezone`); default: the machine's.
 * @param columns - the terminal's width (`CliIo.columns`); default: none, the tables as they are.
 */
export function renderTerminal(
  report: ScanReport,
  price?: number,
  timeZone?: string,
  columns?: number,
): string {
  const days = dayFormat(timeZone);
  const { totals } = report;
  const out: string[] = [];
  out.push(
    `Scanned ${count(totals.files)} file${totals.files === 1 ? '' : 's'}: ${count(totals.sessions)} session${totals.sessions === 1 ? '' : 's'}, ` +
      `${count(totals.toolCalls)} tool call${totals.toolCalls === 1 ? '' : 's'} ran` +
      (totals.deniedCalls > 0 ? `, ${count(totals.deniedCalls)} refused by loopguard.` : '.'),
  );
  const skipped = `${count(totals.problems)} file${totals.problems === 1 ? '' : 's'} skipped or read in part (see stderr).`;
  if (totals.sessions === 0) return `${[...out, ...(totals.problems > 0 ? [skipped] : [])].join('\n')}\n`;
  out.push(...loopLines(report, price));
  if (totals.stoppedOnSpendByLoopguard > 0) {
    const n = totals.stoppedOnSpendByLoopguard;
    // counted from the transcript's stop, or from loopguard's record where the transcript holds none
    const recordOnly = report.sessions.filter(
      (session) => session.spendStop === undefined && session.record?.stop?.on === 'spend',
    ).length;
    const where =
      recordOnly === 0
        ? 'the transcript holds its stop'
        : recordOnly === n
          ? "loopguard's record holds its stop, the transcript none"
          : `the transcript holds its stop; for ${count(recordOnly)} of them, loopguard's record only`;
    // the calls the agent asked for after the stop, each denied (status's words)
    const denied = report.sessions.reduce((sum, session) => sum + (session.spendStop?.deniedAfter ?? 0), 0);
    const after =
      denied === 0 ? '' : `, ${count(denied)} more call${denied === 1 ? '' : 's'} refused after the stop`;
    out.push(
      `loopguard's spend guard stopped ${count(n)} session${n === 1 ? '' : 's'} at its budget (${where})${after}.`,
      ...spendStopLines(report.sessions),
    );
  }
  out.push(...costLines(totals));
  if (totals.nudgesWithoutStop > 0) {
    out.push(
      `${count(totals.nudgesWithoutStop)} nudge${totals.nudgesWithoutStop === 1 ? '' : 's'} came with no stop.`,
    );
  }
  if (totals.problems > 0) out.push(skipped);
  const looped = report.sessions.filter((session) => session.loops.some(isStopped));
  if (looped.length > 0) {
    const rows = looped.slice(0, MAX_ROWS).map((session) => {
      const waste = sessionWaste(session);
      // the session's first stop, the one `status` names (`stopped by loopguard at call 4`); the
      // waste is every loop's (qa66: a Codex session stopped at 4 and again at 8 read "call 8")
      const first = session.loops.find(isStopped);
      return [
        session.project ?? '-',
        dateOf(session, days),
        session.agent,
        session.sessionId,
        kindsOf(session, true).join(', '),
        first === undefined ? '' : stopText(first, session),
        wasteText(waste.toolCalls, waste.deniedCalls, waste.tokens, wastedUsd(session, waste.tokens, price)),
        first?.evidence ?? '',
      ];
    });
    const table = withSubagentColumn(
      ['project', 'date', 'agent', 'session', 'kind', 'stop', 'wasted after the stop', 'evidence'],
      rows,
      looped.slice(0, MAX_ROWS).map((session) => session.parentSessionId),
    );
    out.push(
      '',
      fitted(table.headers, table.rows, columns, (row) => [
        ...headLines(row, row[8]),
        `${row[4]}, stopped at ${row[5]}, wasted after the stop: ${row[6]}`,
        `${row[7]}`,
      ]),
    );
    if (looped.length > MAX_ROWS)
      out.push(`… and ${count(looped.length - MAX_ROWS)} more (all of them: --json or --html)`);
  }
  const nudged = report.sessions.filter((session) => session.loops.some((loop) => !isStopped(loop)));
  if (nudged.length > 0) {
    const loops = nudged.flatMap((session) =>
      session.loops.filter((loop) => !isStopped(loop)).map((loop) => ({ session, loop })),
    );
    const all = loops.map(({ session, loop }) => [
      session.project ?? '-',
      dateOf(session, days),
      session.agent,
      session.sessionId,
      loopKindWords(loop.kind),
      `call ${loop.nudgeCall}${loop.loopguard === 'nudged' ? ' (by loopguard)' : ''}`,
      loop.evidence,
    ]);
    const table = withSubagentColumn(
      ['project', 'date', 'agent', 'session', 'kind', 'nudge', 'evidence'],
      all.slice(0, MAX_ROWS),
      loops.slice(0, MAX_ROWS).map(({ session }) => session.parentSessionId),
    );
    out.push(
      '',
      'Nudged, never stopped:',
      fitted(table.headers, table.rows, columns, (row) => [
        ...headLines(row, row[7]),
        `${row[4]}, nudged at ${row[5]}`,
        `${row[6]}`,
      ]),
    );
    if (all.length > MAX_ROWS)
      out.push(`… and ${count(all.length - MAX_ROWS)} more (all of them: --json or --html)`);
  }
  const differing = report.sessions.filter((session) => session.recordDiffers !== undefined);
  if (differing.length > 0) {
    out.push('', "Where loopguard's record (what status says) and the transcript differ:");
    for (const session of differing.slice(0, MAX_ROWS))
      out.push(`${session.agent} ${session.sessionId}: ${session.recordDiffers}.`);
    if (differing.length > MAX_ROWS)
      out.push(`… and ${count(differing.length - MAX_ROWS)} more (all of them: --json)`);
  }
  const unguarded = unguardedSessions(report.sessions);
  if (unguarded.length > 0) out.push('', `${UNGUARDED_HEADING}:`, ...unguarded);
  if (looped.length > 0)
    out.push('', 'Files and tool calls: loopguard scan --json. How to act on this: docs/scan.md.');
  // the sentences above the tables within the width too (sess70: they were cut mid-word)
  return `${columns === undefined ? out.join('\n') : withinColumns(out.join('\n'), columns)}\n`;
}
