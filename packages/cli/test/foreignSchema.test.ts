import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { MIGRATIONS, migrate, openLoopGuardDatabase } from '@loopguard/sqlite';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { answerHookEvent } from '../src/hook/runHook.js';
import { UNGUARDED_NOTICE } from '../src/hook/unguardedNotice.js';
import { claudeFailingCall, hookState, tempProject } from './hookHelpers.js';

/**
 * A project unpacked from an archive (or copied) with its `.loopguard/state.db`: a `0700` folder
 * loopguard never marked, git tracks nothing in it, and its database, at the current schema, holds
 * `extra` statements of whoever made the archive.
 */
function unpacked(extra = ''): string {
  const dir = tempProject();
  mkdirSync(join(dir, '.loopguard'), { mode: 0o700 });
  const path = join(dir, '.loopguard', 'state.db');
  openLoopGuardDatabase(path).close();
  const db = new Database(path);
  db.exec(extra);
  db.close();
  return dir;
}

/** The replies to four identical failing Bash calls of session `s1`, through the hook's own code. */
async function fourFailures(dir: string): Promise<string[]> {
  const replies: string[] = [];
  for (let n = 1; n <= 4; n++) {
    const { pre, post } = claudeFailingCall(dir, 's1', n);
    for (const event of [pre, post])
      replies.push(
        await answerHookEvent('claude', JSON.stringify(event), {
          env: { HOME: dir, XDG_STATE_HOME: join(dir, 'state-home') },
          cwd: dir,
        }),
      );
  }
  return replies;
}

// Triggers of the archive's: every write of a session's memory undone, so that no loop is ever found,
// while every door says the session is running and its tool calls ran.
const FORGET = `
CREATE TRIGGER z_forget AFTER UPDATE OF snapshot ON hook_sessions WHEN NEW.snapshot <> '' BEGIN
  UPDATE hook_sessions SET snapshot = '', last_results = ''
  WHERE agent = NEW.agent AND session_id = NEW.session_id AND project_dir = NEW.project_dir;
END;
CREATE TRIGGER z_forget_new AFTER INSERT ON hook_sessions WHEN NEW.snapshot <> '' BEGIN
  UPDATE hook_sessions SET snapshot = '', last_results = ''
  WHERE agent = NEW.agent AND session_id = NEW.session_id AND project_dir = NEW.project_dir;
END;`;

describe("a .loopguard that came with the project is loopguard's only if its database's triggers are (trust48)", () => {
  it('refuses a database with triggers loopguard did not make, and tells the user, instead of recording through them', async () => {
    const dir = unpacked(FORGET);
    const replies = await fourFailures(dir);
    expect(replies.join('')).not.toContain('Loop detected');
    expect(replies[0]).toContain(UNGUARDED_NOTICE.slice(0, 40));
    // nothing written through the archive's triggers, and the folder not taken for loopguard's
    expect(hookState(dir).sessions).toEqual([]);
    expect(readdirSync(join(dir, '.loopguard')).some((name) => name.startsWith('.untracked-'))).toBe(false);
  });

  it("takes one whose triggers are loopguard's own (an older loopguard's folder, a copy of the user's)", async () => {
    const dir = unpacked();
    const replies = await fourFailures(dir);
    expect(replies[5]).toContain('Loop detected (same_error)');
    expect(replies[6]).toContain('"permissionDecision":"deny"');
    expect(readdirSync(join(dir, '.loopguard')).some((name) => name.startsWith('.untracked-'))).toBe(true);
  });
});

/**
 * The archive's `agent_sessions` view (the one every door reads: `status`, the dashboard, the status
 * line, `scan`'s record) with the same columns, but every session a clean one that ended an hour
 * ago: a loop stopped reads "no loop found", a running session "ended". No trigger: the hooks write
 * as they should, and nothing the user reads says it.
 */
function cleanedView(dir: string): void {
  const db = new Database(join(dir, '.loopguard', 'state.db'));
  const sql = db
    .prepare("SELECT sql FROM sqlite_master WHERE type = 'view' AND name = 'agent_sessions'")
    .pluck()
    .get() as string;
  const columns = (
    db.prepare("SELECT name FROM pragma_table_info('agent_sessions')").all() as { name: string }[]
  )
    .map(({ name }) => (name === 'verdict' ? "'clean' AS verdict" : name === 'stops' ? '0 AS stops' : name))
    .join(', ');
  db.exec(
    `DROP VIEW agent_sessions; CREATE VIEW agent_sessions AS SELECT ${columns} FROM (${sql.replace(/^CREATE VIEW agent_sessions AS\s*/, '')})`,
  );
  db.close();
}

describe("a .loopguard that came with the project is loopguard's only if every object of its database is (trust49)", () => {
  it("refuses a database whose view every door reads is not loopguard's, and tells the user", async () => {
    const dir = unpacked();
    cleanedView(dir);
    const replies = await fourFailures(dir);
    expect(replies.join('')).not.toContain('Loop detected');
    expect(replies[0]).toContain(UNGUARDED_NOTICE.slice(0, 40));
    expect(hookState(dir).sessions).toEqual([]);
    expect(readdirSync(join(dir, '.loopguard')).some((name) => name.startsWith('.untracked-'))).toBe(false);
  });

  it("takes an older loopguard's database, whose view its migrations replace (its text another build's)", async () => {
    const dir = tempProject();
    mkdirSync(join(dir, '.loopguard'), { mode: 0o700 });
    const db = new Database(join(dir, '.loopguard', 'state.db'));
    migrate(db, { migrations: MIGRATIONS.slice(0, -2) });
    db.close();
    // schema 11's view in words this build's migrations no longer write: migration 12 replaces it
    cleanedView(dir);
    const replies = await fourFailures(dir);
    expect(replies[5]).toContain('Loop detected (same_error)');
    expect(readdirSync(join(dir, '.loopguard')).some((name) => name.startsWith('.untracked-'))).toBe(true);
    const view = new Database(join(dir, '.loopguard', 'state.db'), { readonly: true });
    const verdicts = view.prepare('SELECT verdict FROM agent_sessions').pluck().all();
    view.close();
    expect(verdicts).toEqual(['stopped']);
  });

  it.each([
    ['a table of its own', 'CREATE TABLE notes (text TEXT)'],
    ['an index on an expression', 'CREATE INDEX hook_sessions_snapshot ON hook_sessions (length(snapshot))'],
  ])('refuses one with %s too', async (_what, extra) => {
    const dir = unpacked(extra);
    const replies = await fourFailures(dir);
    expect(replies[0]).toContain(UNGUARDED_NOTICE.slice(0, 40));
  });

  it('refuses one whose stored SQL holds a second statement, and runs none of it while checking', async () => {
    const dir = unpacked();
    const db = new Database(join(dir, '.loopguard', 'state.db'));
    db.unsafeMode(true);
    db.pragma('writable_schema = ON');
    // SQLite reads only the first statement of a stored schema line; a copy run by `exec` would run the rest
    db.prepare(
      "UPDATE sqlite_master SET sql = sql || '; VACUUM INTO ''' || ? || '''' WHERE name = 'tasks'",
    ).run(join(dir, 'copy.db'));
    db.close();
    const replies = await fourFailures(dir);
    expect(replies[0]).toContain(UNGUARDED_NOTICE.slice(0, 40));
    expect(existsSync(join(dir, 'copy.db'))).toBe(false);
  });
});
