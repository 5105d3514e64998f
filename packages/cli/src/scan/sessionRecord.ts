import { isAbsolute } from 'node:path';
import {
  type SessionRow,
  type SessionVerdict,
  sessionViewOf,
  subagentVerdictsOf,
} from '@loopguard/core/internal';
import { readLiveSessions, sessionRowColumns } from '@loopguard/sqlite/liveSessions';
import type BetterSqlite3 from 'better-sqlite3';
import { heldSessionProject } from '../hook/heldSessionProject.js';
import { sessionProjectDir } from '../hook/sessionProject.js';
import { readProjectDatabase } from './projectDatabase.js';
import type { ScanAgent } from './TranscriptParser.js';

/**
 * What loopguard's hooks recorded of a scanned session in its project's `state.db`: the story
 * `status`, `status --session`, the dashboard and the status line tell of it (the `agent_sessions`
 * view, read as they read it).
 * @example { project: '/home/me/app', verdict: 'stopped', summary: 'stopped by loopguard at call 4 (same error), 3 tool calls ran, 1 nudge', toolCalls: 3, refusedCalls: 0, nudges: 1, stop: { on: 'loop', kind: 'same_error', call: 4 }, costUsd: null }
 */
export interface SessionRecord {
  /** The project loopguard keeps the session in (`status`'s project). */
  project: string;
  /** What loopguard did, in one word (`status`'s verdict). */
  verdict: SessionVerdict;
  /** The sentence every other door prints of the session. */
  summary: string;
  /** Tool calls that ran, as the hooks counted them. */
  toolCalls: number | null;
  /** The model's own calls against loopguard that its hooks refused (no loop, no stop). */
  refusedCalls: number;
  /** Nudges loopguard gave. */
  nudges: number;
  /** loopguard's first stop: a loop's or the spend guard's, its kind and the tool call it fell at; `null`: none. */
  stop: { on: 'loop' | 'spend'; kind: string | null; call: number | null } | null;
  /** Dollars the spend guard counted (priced models only); `null` where no spend guard counted. */
  costUsd: number | null;
  /** The user switched the session off: its later calls were neither judged nor counted (codex58). */
  switchedOff: boolean;
  /**
   * The `loopguard run` whose stream watcher stopped this agent session mid-run (its `loop_stop`
   * entry names the session as `agentSession`): the record is the run's (`status`'s row of it),
   * with this session's stop; absent for a session the hooks recorded.
   */
  run?: string;
}

/**
 * The records of scanned sessions, read from their projects' databases: each folder's project
 * looked up once, each database read once, read-only, and closed.
 */
export class SessionRecords {
  private readonly projects = new Map<string, string>();
  /** Each project's records by `agent:sessionId`; `null`: no database, or one not to be read. */
  private readonly byProject = new Map<string, Map<string, SessionRecord> | null>();

  /**
   * The record of `session` (its agent and id) in the project the hooks keep a session started in
   * its `project` in (`sessionProjectDir`); `undefined` where there is none (a folder the hooks never
   * wrote in, a database refused or unreadable, no row of the session).
   */
  recordOf(session: {
    agent: ScanAgent;
    sessionId: string;
    project: string | null;
  }): SessionRecord | undefined {
    const started = session.project;
    if (started === null || !isAbsolute(started) || session.agent === 'jsonl') return undefined;
    let project = this.projects.get(started);
    if (project === undefined) {
      project = sessionProjectDir(started);
      this.projects.set(started, project);
    }
    const key = `${session.agent}:${session.sessionId}`;
    let records = this.recordsOf(project);
    if (records?.has(key) !== true) {
      // not there: a `.git` made in the folder since may have ended the walk below the project the
      // hooks kept the session in (trust45, and trust46 where another session made this database)
      records = this.recordsOf(heldSessionProject(started, (p) => this.recordsOf(p)?.has(key) === true));
    }
    return records?.get(key);
  }

  /** `project`'s records, read once. */
  private recordsOf(project: string): Map<string, SessionRecord> | null {
    let records = this.byProject.get(project);
    if (records === undefined) {
      records = readRecords(project);
      this.byProject.set(project, records);
    }
    return records;
  }
}

/**
 * Every session's record in `project`'s database, read once (the view is one pass over its
 * entries, where a query by session would be a pass each); `null` where there is no database or
 * it is refused (a link, another user's) or unreadable.
 */
function readRecords(project: string): Map<string, SessionRecord> | null {
  const records = readProjectDatabase(project, (db) => {
    const view = db
      .prepare("SELECT 1 FROM sqlite_master WHERE type = 'view' AND name = 'agent_sessions'")
      .get();
    if (view === undefined) return null;
    readLiveSessions(db);
    const records = new Map<string, SessionRecord>();
    // the most recently active row of an id (a session id may repeat across folders of one database)
    const rows = db
      .prepare(`SELECT ${sessionRowColumns(db)} FROM agent_sessions ORDER BY last_active`)
      .all() as SessionRow[];
    // each main session's sentence names its subagents loopguard stepped in on, as `status` (doors67)
    const subagents = rows.flatMap((row) =>
      row.parent_session_id === null ? [] : [{ ...row, parent_session_id: row.parent_session_id, n: 1 }],
    );
    for (const row of rows)
      records.set(
        `${row.agent}:${row.session_id}`,
        recordOfView(sessionViewOf(row, subagentVerdictsOf(subagents, row.agent, row.session_id))),
      );
    addRunStops(db, records);
    return records;
  });
  return records ?? null;
}

/**
 * The agent sessions `loopguard run`'s stream watcher stopped (sessions59): each gets its run's
 * record (`run:<id>`, what `status` says of the run) with its own stop, and no dollars (the run's
 * are every iteration's); a session the hooks recorded keeps the hooks' record.
 */
function addRunStops(db: BetterSqlite3.Database, records: Map<string, SessionRecord>): void {
  const stops = db
    .prepare(
      `SELECT json_extract(metadata, '$.agentSession') AS session, json_extract(metadata, '$.runId') AS run,
        json_extract(metadata, '$.loopType') AS kind, json_extract(metadata, '$.toolCall') AS call
       FROM context_entries WHERE topic = 'loop_stop' AND json_extract(metadata, '$.agentSession') IS NOT NULL
       ORDER BY id`,
    )
    .all() as Array<{ session: string; run: string; kind: string | null; call: number | null }>;
  for (const stop of stops) {
    const run = records.get(`run:${stop.run}`);
    if (run === undefined || records.has(stop.session)) continue;
    records.set(stop.session, {
      ...run,
      stop: { on: 'loop', kind: stop.kind, call: stop.call },
      costUsd: null,
      run: stop.run,
    });
  }
}

function recordOfView(view: ReturnType<typeof sessionViewOf>): SessionRecord {
  return {
    project: view.projectDir,
    verdict: view.verdict,
    summary: view.summary,
    toolCalls: view.toolCalls,
    refusedCalls: view.refusedCalls,
    nudges: view.nudges,
    stop:
      view.stop === null
        ? null
        : {
            on: view.stop.topic === 'spend_stop' ? 'spend' : 'loop',
            kind: view.stop.kind,
            call: view.stop.call,
          },
    costUsd: view.spend === null ? null : view.spend.costUsd,
    switchedOff: view.switchedOff,
  };
}
