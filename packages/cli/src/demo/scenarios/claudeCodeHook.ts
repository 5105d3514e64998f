import { EventEmitter } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type HookAgent,
  openLoopGuardDatabase,
  SqliteHookSessionStore,
  SqliteSpendStore,
} from '@loopguard/sqlite';
import { execa } from 'execa';
import type { DemoContext, DemoScenario } from '../DemoContext.js';
import { RECORDED_CLAUDE_CODE_SESSION } from './claudeCodeSession.js';

/**
 * The built command, from `src/` (the CLI run in-process by the tests) and from `dist/` alike: each
 * event goes through the public `loopguard hook claude`, as Claude Code runs it.
 */
export const CLI_BIN = fileURLToPath(new URL('../../../dist/bin.js', import.meta.url));

/** One recorded hook event, as much of it as the narration shows. */
interface RecordedEvent {
  hook_event_name: string;
  tool_name?: string;
  tool_input?: { command?: string; file_path?: string };
  error?: string;
}

/** What the hook answered, as Claude Code acts on it. */
interface HookAnswer {
  continue?: boolean;
  stopReason?: string;
  hookSpecificOutput?: { additionalContext?: string; permissionDecision?: string };
}

/** `Bash: node test.js` — the tool and what it was given. */
function callOf(event: RecordedEvent): string {
  const input = event.tool_input ?? {};
  return `${event.tool_name}: ${input.command ?? input.file_path?.split('/').pop() ?? ''}`;
}

/** What a Claude Code user sees of one hook reply (an empty reply: the call goes on untouched). */
function seen(event: RecordedEvent, stdout: string): string {
  if (stdout.trim() === '') {
    if (event.hook_event_name === 'PreToolUse') return 'runs';
    return event.error === undefined
      ? 'ok'
      : `failed: ${event.error.split('\n').find((l) => /Error/.test(l))}`;
  }
  const answer = JSON.parse(stdout) as HookAnswer;
  const message = (answer.hookSpecificOutput?.additionalContext ?? answer.stopReason ?? '').split('\n')[0];
  if (answer.continue === false) {
    const denied = answer.hookSpecificOutput?.permissionDecision === 'deny' ? 'refused, ' : '';
    return `STOP (${denied}the session ends): "${message}"`;
  }
  return `NUDGE (in the model's next request as "${event.hook_event_name}:${event.tool_name} hook additional context"): "${message}"`;
}

/** What {@link copyRecords} copied: the entries, and the ids of the sessions. */
export interface CopiedRecords {
  /** Context entries copied. */
  entries: number;
  /** The hook sessions copied, by id. */
  sessionIds: string[];
}

/**
 * Copies what the hook recorded in the project's store (`.loopguard/state.db`, where the hook writes)
 * into the demo's, so that the demo's sessions table says what `status` says in the project: the
 * entries (nudges, stops, refused calls, spend warnings and stops, also sent to the dashboard's live
 * feed as a step detector reports them), the sessions, and what each session spent (its ledger).
 * The replay ran in a temporary folder, removed after it (under the demo's `.loopguard` folder its
 * calls would be calls against loopguard's own files): its records name instead the folder `name` of
 * the demo's files, made here, so that every session names a folder that exists (sess64).
 * @returns what was copied; `shownAs`: the folder the records name.
 */
export function copyRecords(ctx: DemoContext, project: string, name: string): CopiedRecords {
  const shownAs = join(ctx.workDir, name);
  mkdirSync(shownAs, { recursive: true });
  const shown = (text: string) => text.replaceAll(project, shownAs);
  const store = openLoopGuardDatabase(join(project, '.loopguard', 'state.db'), { readonly: true });
  const feed = new EventEmitter();
  ctx.watch(feed);
  try {
    const entries = store.stateMachine.listContextEntries({ topics: [...COPIED_TOPICS] }).reverse();
    // on the demo's clock, which its entries and sessions are written at: the hook wrote real time
    // (sessions60: a spend stop detected twenty minutes after its own entry's time)
    const now = ctx.clock.now();
    for (const { entryType, topic, content, relatedTasks, confidence, metadata } of entries) {
      const detected = 'detectedAt' in metadata ? { detectedAt: now } : {};
      const copy = {
        entryType,
        topic,
        content: shown(content),
        relatedTasks,
        confidence,
        metadata: { ...(JSON.parse(shown(JSON.stringify(metadata))) as typeof metadata), ...detected },
      };
      feed.emit('stepLoopRecorded', ctx.database.stateMachine.addContextEntry(copy));
    }
    const sessions = new SqliteHookSessionStore({ db: ctx.database.db, clock: ctx.clock });
    const rows = store.db.prepare('SELECT agent, session_id, project_dir FROM hook_sessions').all() as {
      agent: HookAgent;
      session_id: string;
      project_dir: string;
    }[];
    for (const row of rows) {
      const key = { agent: row.agent, sessionId: row.session_id, projectDir: row.project_dir };
      const session = new SqliteHookSessionStore({ db: store.db }).get(key);
      if (session !== null)
        sessions.update({ ...key, projectDir: shown(row.project_dir) }, () => ({
          next: session,
          result: null,
        }));
    }
    const ledgers = store.db
      .prepare(
        "SELECT scope, ledger, offset, cap_usd, cap_tokens FROM spend_ledgers WHERE scope LIKE 'session:%'",
      )
      .all() as {
      scope: string;
      ledger: string;
      offset: number;
      cap_usd: number | null;
      cap_tokens: number | null;
    }[];
    new SqliteSpendStore({ db: ctx.database.db, clock: ctx.clock }).update(
      ledgers.map((l) => l.scope),
      () => ({
        next: new Map(
          ledgers.map((l) => [
            l.scope,
            {
              ledger: JSON.parse(l.ledger) as unknown,
              offset: l.offset,
              caps: { maxCostUsd: l.cap_usd ?? undefined, maxTokens: l.cap_tokens ?? undefined },
            },
          ]),
        ),
        result: undefined,
      }),
    );
    return { entries: entries.length, sessionIds: rows.map((row) => row.session_id) };
  } finally {
    store.close();
  }
}

/** The entries a hook writes that {@link copyRecords} copies. */
const COPIED_TOPICS = ['loop_nudge', 'loop_stop', 'call_refused', 'spend_warning', 'spend_stop'] as const;

/**
 * Step level, in a real agent CLI: a recorded Claude Code session (it runs the same failing tests
 * again and again) replayed event by event through the built `loopguard hook claude`, as Claude
 * Code itself calls it with `loopguard init claude` installed. The hook nudges at the third same
 * failure after a fresh start, then denies the next repeat and ends the session.
 */
export const claudeCodeHook: DemoScenario = {
  title: 'Claude Code guarded by `loopguard hook claude`: a recorded session nudged, then stopped',
  tasks: [],
  async run(ctx) {
    // not under .loopguard/ (the demo's files): a call of a file in a `.loopguard` folder is the
    // model's own call against loopguard's state, which the hook refuses
    const project = mkdtempSync(join(tmpdir(), 'loopguard-demo-claude-'));
    try {
      await replay(ctx, project);
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  },
};

/** Each recorded event through the built `loopguard hook claude` in `project`, then its entries copied. */
async function replay(ctx: DemoContext, project: string): Promise<void> {
  for (const [i, line] of RECORDED_CLAUDE_CODE_SESSION.entries()) {
    const event = line.replaceAll('<project>', project);
    const { stdout } = await execa(process.execPath, [CLI_BIN, 'hook', 'claude'], {
      cwd: project,
      input: event,
      reject: false,
      env: { CLAUDE_PROJECT_DIR: '', LOOPGUARD_HOOK: '' },
    });
    const recorded = JSON.parse(event) as RecordedEvent;
    ctx.print(
      `   Event ${i + 1} ${recorded.hook_event_name} ${callOf(recorded)} -> ${seen(recorded, stdout)}`,
    );
    await ctx.pause();
    // Claude Code ends the session at a stop: the recording's later events never happen.
    if (stdout.trim() !== '' && (JSON.parse(stdout) as HookAnswer).continue === false) break;
  }
  const { entries, sessionIds } = copyRecords(ctx, project, 'claude-project');
  ctx.print(
    `   The hook recorded ${entries} entries (loop_nudge, loop_stop) for the Claude Code session ${sessionIds.join(', ')}`,
  );
}
