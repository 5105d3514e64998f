import { systemClock } from '@loopguard/core';
import { actionWords, SESSION_VERDICTS, type SessionVerdict } from '@loopguard/core/internal';
import {
  DEFAULT_ATTEMPT_WINDOW_MS,
  DEFAULT_STATUS_SESSIONS,
  MAX_PAGE_LIMIT,
  parseStatusQuery,
  statusSnapshot,
} from '@loopguard/server';
import { type Command, Option } from 'commander';
import { CliError } from '../terminal/CliError.js';
import type { CliIo } from '../terminal/cliIo.js';
import { EXIT_CODES } from '../terminal/exitCodes.js';
import { formatTable } from '../terminal/formatTable.js';
import { localTime, timeZoneName } from '../terminal/localTime.js';
import { sessionList } from '../terminal/sessionList.js';
import { printable } from '../terminal/terminalText.js';
import { wrapped } from '../terminal/wrapText.js';
import { entryCall } from './entryCall.js';
import {
  DB_FLAG_HELP,
  type OpenStatusReader,
  openStatusReader,
  readingFlags,
  type StatusStoreFlags,
} from './openStatusReader.js';
import { idNotOption, oneOf, positiveInteger } from './parsers.js';

/** `newest run r2 interrupted, breaker: OPEN` for the newest run (its status in words); empty without one. */
function runLine(breaker: { state: string; runId?: unknown; statusText?: unknown } | undefined): string {
  if (breaker === undefined) return '';
  if (typeof breaker.runId !== 'string') return `breaker: ${breaker.state}`;
  return `newest run ${breaker.runId} ${String(breaker.statusText)}, breaker: ${breaker.state}`;
}

type StatusOptions = StatusStoreFlags & {
  json?: boolean;
  limit: number;
  cursor?: string;
  window: number;
  session?: string;
  verdict?: SessionVerdict;
};

/**
 * `loopguard status [--db <file> | --postgres <url>] [--json] [--session <id>] [--verdict v] [--limit n] [--cursor c]`:
 * the recent agent sessions with what loopguard did to each (`--verdict stopped`: only those), then the orchestrator's tasks when the
 * store has any (the `/status` body with `--json`). Without a store flag it reads the project's
 * database and says which. `--session <id>` prints one session and exits 10 when loopguard stopped
 * it, 11 when the spend guard did (docs/cli.md).
 * @example loopguard status --session 3f1c… --json
 */
export function registerStatusCommand(program: Command, io: CliIo): void {
  program
    .command('status')
    .description(
      'Show the recent agent sessions and what loopguard did to each (and the tasks of an orchestrator).',
    )
    .option('--db <file>', DB_FLAG_HELP)
    .option('--postgres <url>', 'a PostgreSQL connection string (a fleet)')
    .option('--schema <name>', "the PostgreSQL schema of loopguard's tables (default: public)")
    .option('--json', 'print the status as JSON (the /status body)')
    .addOption(
      new Option(
        '--session <id>',
        'only this session; exit 10 when loopguard stopped it, 11 on spend',
      ).argParser(idNotOption("the session's id", 'loopguard status')),
    )
    .addOption(
      new Option(
        '--verdict <verdict>',
        `only the sessions with this verdict (${SESSION_VERDICTS.join(', ')})`,
      ).argParser(oneOf(SESSION_VERDICTS)),
    )
    .addOption(
      new Option(
        '--limit <n>',
        `sessions and tasks per page (without it, the terminal lists the ${DEFAULT_STATUS_SESSIONS} most recent sessions)`,
      )
        .argParser(positiveInteger(MAX_PAGE_LIMIT))
        .default(parseStatusQuery(new URLSearchParams()).limit),
    )
    .option('--cursor <cursor>', 'the nextCursor of the previous page of tasks')
    .addOption(
      new Option('--window <ms>', 'attempt window, ms')
        .argParser(positiveInteger(1e9))
        .default(DEFAULT_ATTEMPT_WINDOW_MS),
    )
    .action(async (options: StatusOptions, command: Command) => {
      const store = await openStatusReader(options, io);
      try {
        // a terminal's list of weeks of sessions is the 20 most recent unless --limit says (qa47)
        const sessionLimit =
          options.json === true || command.getOptionValueSource('limit') === 'cli'
            ? options.limit
            : Math.min(options.limit, DEFAULT_STATUS_SESSIONS);
        if (options.session !== undefined)
          await printSession(io, store, options.session, options.json === true);
        else await printStatus(io, store, options, sessionLimit);
      } finally {
        await store.close();
      }
    });
}

async function printStatus(
  io: CliIo,
  store: OpenStatusReader,
  options: StatusOptions,
  sessionLimit: number,
): Promise<void> {
  const { reader } = store;
  const [baseline, run] = await Promise.all([reader.metricsBaseline(), reader.latestRun()]);
  const cheaper = store.pricesBelowLibrary();
  const snapshot = await readingFlags(() =>
    statusSnapshot(
      reader,
      { limit: options.limit, cursor: options.cursor, sessionLimit, sessionVerdict: options.verdict },
      {
        clock: systemClock,
        attemptsRecorded: baseline.attempts,
        attemptWindowMs: options.window,
        breaker: run === undefined ? undefined : { ...run },
        hooksOff: store.hooksOff(),
        hooksConfigured: store.hooksConfigured(),
        pricesBelowLibrary: cheaper,
      },
    ),
  );
  const spend = spendCounts(baseline.recoveries);
  if (options.json) {
    const beside = store.projectDatabase === undefined ? {} : { projectDatabase: store.projectDatabase };
    io.stdout(`${JSON.stringify({ database: store.source, ...beside, ...snapshot, spend }, null, 2)}\n`);
    return;
  }
  const out = io.stdout;
  out(
    headerLines(store, io.columns, {
      hooksOff: snapshot.hooksOff,
      hooksConfigured: snapshot.hooksConfigured,
      pricesBelowLibrary: cheaper,
    }),
  );
  const { sessions } = snapshot;
  const total = Object.values(sessions.counts).reduce((n, c) => n + c, 0);
  const byVerdict = Object.entries(sessions.counts)
    .filter(([, n]) => n > 0)
    .map(([verdict, n]) => `${n} ${verdict.replace(/_/g, ' ')}`)
    .join(', ');
  // their dollars as the dashboard's Spent and `--json`'s `sessions.spent` say them (sessionCountsOf)
  const spent = sessions.spent === '' ? '' : `, ${sessions.spent} spent`;
  const counts = [
    `sessions: ${total}${total === 0 ? '' : ` (${byVerdict})`}${spent}`,
    spendLine(spend),
    runLine(snapshot.breaker),
  ].filter((part) => part !== '');
  // on a narrow terminal each count its own line (qa47)
  const oneLine = counts.join('  ');
  out(`${io.columns !== undefined && oneLine.length > io.columns ? counts.join('\n') : oneLine}\n`);
  if (sessions.sessions.length > 0) out(`\n${sessionList(sessions.sessions, io.columns)}\n`);
  // --verdict: the sessions of that verdict, which the counts above number
  const listed = options.verdict === undefined ? total : sessions.counts[options.verdict];
  const which = options.verdict === undefined ? '' : ` ${options.verdict.replace(/_/g, ' ')}`;
  if (listed === 0 && options.verdict !== undefined) out(`\n(no session${which})\n`);
  if (listed > sessions.sessions.length) {
    const all = listed <= MAX_PAGE_LIMIT ? `--limit ${listed} for all` : `--limit ${MAX_PAGE_LIMIT} for more`;
    out(`(the ${sessions.sessions.length} most recent of ${listed}${which} shown; ${all})\n`);
  }
  if (snapshot.page.total === 0 && snapshot.tickCount === 0) return;
  out(
    `\ntasks (orchestrator): ${snapshot.page.total}  attempts recorded: ${snapshot.tickCount}  running: ${snapshot.running ? 'yes' : 'no'}\n\n`,
  );
  const rows = snapshot.tasks.map((t) => [
    t.id,
    t.status,
    String(t.attemptCount),
    t.lastAttempt === null ? '-' : localTime(t.lastAttempt),
    // its action in words, as the entries say it (sess68); --json keeps the topic
    t.lastRecoveryText ?? '-',
  ]);
  out(
    `${formatTable(['task', 'status', 'attempts', `last attempt (${timeZoneName()})`, 'last recovery'], rows)}\n`,
  );
  if (snapshot.page.nextCursor !== null)
    out(`\nmore: loopguard status ${store.label} --cursor ${snapshot.page.nextCursor}\n`);
}

/**
 * One session by id: its line (or JSON with its nudges, stop and spend entries), then the exit
 * status a script reads: 10 stopped by loopguard, 11 stopped on spend, 0 otherwise.
 */
async function printSession(io: CliIo, store: OpenStatusReader, id: string, json: boolean): Promise<void> {
  const { sessions } = await store.reader.sessionPage({ limit: 2, sessionId: id });
  const session = sessions[0];
  if (session === undefined) {
    const beside =
      store.projectDatabase === undefined
        ? ''
        : ` (this project's hook sessions: loopguard status --db ${store.projectDatabase})`;
    throw new CliError(`--session ${id}: no such session in ${store.source}${beside}`);
  }
  const entries = await store.reader.sessionEntries(session, 100);
  const out = io.stdout;
  // what the project's configuration does to the guard, as `status --json` says it (sessions60)
  const said = {
    hooksOff: store.hooksOff(),
    hooksConfigured: store.hooksConfigured(),
    pricesBelowLibrary: store.pricesBelowLibrary(),
  };
  if (json) {
    const beside = store.projectDatabase === undefined ? {} : { projectDatabase: store.projectDatabase };
    out(`${JSON.stringify({ database: store.source, ...beside, ...session, ...said, entries }, null, 2)}\n`);
  } else {
    out(`${headerLines(store, io.columns, said)}${sessionList([session], io.columns)}\n`);
    for (const e of entries) {
      // a subagent's entry names its run: the session's own verdict is not its
      const sub =
        e.metadata.parentSessionId === session.sessionId ? ` (subagent ${e.metadata.sessionId})` : '';
      const call = entryCall(e.metadata);
      const at = call === undefined ? '' : ` at ${call}`;
      // the entry's action in words, as the dashboard's badge and `recoveries` say it (`nudge`, `spend warning`)
      const what = actionWords(e.topic);
      // the agent's message with its kind in words (sess68): `--json` keeps it as stored
      const line = `${localTime(e.timestamp)}  ${printable(`${what}${at}${sub}: ${e.contentText.split('\n')[0]}`)}`;
      out(`${io.columns === undefined ? `  ${line}` : wrapped(line, '  ', io.columns).join('\n')}\n`);
    }
  }
  if (session.verdict === 'stopped')
    throw new CliError(`session ${id}: ${session.summary}`, EXIT_CODES.sessionStopped);
  if (session.verdict === 'stopped_on_spend')
    throw new CliError(`session ${id}: ${session.summary}`, EXIT_CODES.sessionStoppedOnSpend);
}

/** Where the project's own sessions are when `serve.postgres` sent `status` to another store. */
function projectDatabaseLine(store: OpenStatusReader): string {
  return store.projectDatabase === undefined
    ? ''
    : `this project's hook sessions are not in this store: loopguard status --db ${store.projectDatabase}\n`;
}

/**
 * The lines above the sessions, `status`'s and `status --session`'s alike: the database read, where
 * the project's own sessions are, and what the project's configuration does to the guard (hooks off
 * or failing open, its settings, its prices below the pricing library's: trust52), each wrapped on
 * a terminal. One place, so that a door's header cannot say less than the other's (review59).
 */
function headerLines(
  store: OpenStatusReader,
  columns: number | undefined,
  said: {
    hooksOff?: string | undefined;
    hooksConfigured?: string | undefined;
    pricesBelowLibrary?: string | undefined;
  },
): string {
  return `database: ${store.source}\n${projectDatabaseLine(store)}${saidLine('hooks', said.hooksOff, columns)}${saidLine('hooks', said.hooksConfigured, columns)}${saidLine('spend', said.pricesBelowLibrary, columns)}`;
}

/**
 * `hooks: off in this project (…)` (or `hooks: settings of this project (…): …`, `spend: prices in
 * this project below …`) and a line break where there is such a sentence, else `''`; shown
 * printable (a project's path is the user's folder name).
 */
function saidLine(
  label: 'hooks' | 'spend',
  sentence: string | undefined,
  columns: number | undefined,
): string {
  return sentence === undefined ? '' : `${terminalLines(printable(`${label}: ${sentence}`), columns)}\n`;
}

/** A line of the header, wrapped between words on a terminal, its next lines indented (sessions57). */
function terminalLines(text: string, columns: number | undefined): string {
  return columns === undefined ? text : wrapped(text, '  ', columns, '').join('\n');
}

/** The spend guard's entries in the store: warnings and stops (`spend_warning`, `spend_stop`). */
function spendCounts(recoveries: readonly { topic: string; count: number }[]): {
  warnings: number;
  stops: number;
} {
  const count = (topic: string) =>
    recoveries.filter((r) => r.topic === topic).reduce((n, r) => n + r.count, 0);
  return { warnings: count('spend_warning'), stops: count('spend_stop') };
}

/** `spend: 1 warning, 1 stop` when the spend guard has spoken, else nothing. */
function spendLine({ warnings, stops }: { warnings: number; stops: number }): string {
  if (warnings + stops === 0) return '';
  return `spend: ${warnings} warning${warnings === 1 ? '' : 's'}, ${stops} stop${stops === 1 ? '' : 's'} (loopguard recoveries --topic spend_stop)`;
}
