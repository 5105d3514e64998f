import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '@loopguard/core';
import { describe, expect, it } from 'vitest';
import {
  agentProcessGone,
  hookAgentProcess,
  openLoopGuardDatabase,
  readLiveSessions,
  SqliteHookSessionStore,
} from '../src/index.js';
import { ONE_CALL_SESSION } from './helpers.js';

// sessions50: a door says a session ended once its agent's process is gone, only where that is
// known (this machine, boot, pid namespace and user) and never of another process given the pid.

const linux = process.platform === 'linux';
const state = ONE_CALL_SESSION;

/** The id `hookAgentProcess` would write for `pid`, with its start time moved by `ticks`. */
function idOf(pid: number, ticks = 0): string {
  const own = hookAgentProcess()?.id as string;
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const start = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
  return own.replace(/:\d+:\d+$/, `:${pid}:${start + ticks}`);
}

describe('agentProcessGone', () => {
  it.runIf(linux)('is false of a live process, true once it is gone or its pid names a later process', () => {
    expect(hookAgentProcess()?.id).toMatch(new RegExp(`^linux:\\d+:[0-9a-f-]+:\\d+:${process.ppid}:\\d+$`));
    expect(agentProcessGone(idOf(process.pid))).toBe(false);
    // the same pid, started at another time: another process
    expect(agentProcessGone(idOf(process.pid, 1))).toBe(true);
    const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
      encoding: 'utf8',
    });
    const gone = idOf(process.pid).replace(/:\d+:(\d+)$/, `:${child.stdout}:$1`);
    expect(agentProcessGone(gone)).toBe(true);
  });

  it.runIf(linux)(
    'is true of a process that exited and was not reaped (a zombie: a container whose init reaps none)',
    async () => {
      // `sleep 1`'s parent becomes `sleep 10`, which never waits for it (the child outlives the
      // shell's `exec` by a second: a shell still there when it exits would reap it)
      const parent = spawn('/bin/sh', ['-c', 'sleep 1 & echo $!; exec sleep 10'], {
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      try {
        const pid = Number(
          await new Promise<string>((resolve) =>
            parent.stdout.once('data', (d: Buffer) => resolve(String(d))),
          ),
        );
        let state = '';
        for (let i = 0; i < 500 && state !== 'Z'; i++) {
          await new Promise((resolve) => setTimeout(resolve, 10));
          const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
          state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] ?? '';
        }
        expect(state).toBe('Z');
        expect(agentProcessGone(idOf(pid))).toBe(true);
      } finally {
        parent.kill('SIGKILL');
      }
    },
  );

  it.runIf(linux)(
    'is never true where it cannot be known: another user, boot or container, or no record',
    () => {
      const id = idOf(process.pid, 1); // gone, were it this machine's
      const uid = process.getuid?.() ?? 0;
      expect(agentProcessGone(id.replace(/^linux:\d+:/, `linux:${uid + 1}:`))).toBe(false);
      expect(agentProcessGone(id.replace(/^(linux:\d+:)[0-9a-f-]+:/, '$1another-boot:'))).toBe(false);
      expect(agentProcessGone(id.replace(/:(\d+):(\d+):(\d+)$/, ':1:$2:$3'))).toBe(false);
      expect(agentProcessGone(`?${id}`)).toBe(false);
      expect(agentProcessGone(null)).toBe(false);
      expect(agentProcessGone('windows:1')).toBe(false);
    },
  );
});

describe('hookAgentProcess', () => {
  it.runIf(linux)(
    "reads this boot and pid namespace at every call and keeps nothing: the hook's startup snapshot runs it while it is built (hook37r)",
    () => {
      // node's own `fs`, whose change `syncBuiltinESMExports` gives the modules that import from it
      const fs = createRequire(import.meta.url)('node:fs') as typeof import('node:fs');
      const reads: string[] = [];
      const original = fs.readFileSync;
      fs.readFileSync = ((path: import('node:fs').PathOrFileDescriptor, ...rest: never[]) => {
        reads.push(String(path));
        return original(path, ...rest);
      }) as typeof fs.readFileSync;
      syncBuiltinESMExports();
      try {
        agentProcessGone(null); // a door's reading, kept for its process, is not the hook's
        expect(hookAgentProcess()?.id).toBe(hookAgentProcess()?.id);
      } finally {
        fs.readFileSync = original;
        syncBuiltinESMExports();
      }
      expect(reads.filter((path) => path === '/proc/sys/kernel/random/boot_id')).toHaveLength(2);
    },
  );
});

describe("the hook session's agent_process", () => {
  const key = { agent: 'claude' as const, sessionId: 's1', projectDir: '/repo' };
  const column = (db: ReturnType<typeof openLoopGuardDatabase>) =>
    db.db.prepare('SELECT agent_process FROM hook_sessions').pluck().get();

  it("is the process of the session's latest event, told from the first (sessions53: `hookAgentProcess` skips the launchers)", () => {
    const clock = new ManualClock(10_000);
    const database = openLoopGuardDatabase(':memory:', { clock });
    const write = (process: { id: string } | null) => {
      new SqliteHookSessionStore({ db: database.db, clock, agentProcess: process }).update(key, () => ({
        next: state,
        result: null,
      }));
      clock.advance(1_000);
    };
    write({ id: 'linux:1:b:2:100:5' });
    expect(column(database)).toBe('linux:1:b:2:100:5');
    // a session resumed in a new process follows it
    write({ id: 'linux:1:b:2:400:9' });
    expect(column(database)).toBe('linux:1:b:2:400:9');
    write(null);
    expect(column(database)).toBeNull();
    database.close();
  });

  /** `text` quoted for a POSIX shell. */
  const q = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;

  /**
   * Runs `agent(probe)` (a node script given the shell command of a probe that prints
   * `hookAgentProcess()`'s id, run as `hook <agent>`) in a folder of its own, with `env`: the agent's
   * pid and the id the probe found.
   */
  function agentAndFound(
    agent: (probe: string, dir: string) => string,
    args: string[] = [],
    env: (dir: string) => NodeJS.ProcessEnv = () => process.env,
  ): { pid: string | undefined; found: string | undefined } {
    const dir = mkdtempSync(join(tmpdir(), 'loopguard-agent-'));
    const script = join(dir, 'probe.cjs');
    writeFileSync(
      script,
      `const { hookAgentProcess } = require(${JSON.stringify(require.resolve('../dist/index.js'))}); process.stdout.write(hookAgentProcess()?.id ?? 'none')`,
    );
    const source = `const r = require('node:child_process').spawnSync(${agent(`${q(process.execPath)} ${q(script)}`, dir)}, { encoding: 'utf8' }); process.stdout.write(process.pid + ' ' + r.stdout)`;
    const out = spawnSync(process.execPath, ['-e', source, ...args], {
      encoding: 'utf8',
      env: env(dir),
    }).stdout;
    rmSync(dir, { recursive: true });
    const [pid, id] = out.split(' ');
    return { pid, found: id?.split(':').at(-2) };
  }

  it.runIf(linux)(
    'hookAgentProcess: past the shells and the launchers of this very command, the agent (sessions53)',
    () => {
      // agent → sh -c → launcher holding this command's arguments → bash -lc → this probe
      const { pid, found } = agentAndFound(
        (probe) => {
          const launcher = `require('node:child_process').spawnSync('/bin/bash', ['-lc', ${JSON.stringify(`${probe} hook claude`)}], { stdio: 'inherit' })`;
          // as `npx loopguard hook claude` names it: the program, then the hook's arguments
          return `'/bin/sh', ['-c', ${JSON.stringify(`${q(process.execPath)} -e ${q(launcher)} loopguard hook claude`)}]`;
        },
        // an agent whose prompt happens to say the hook's words is no launcher
        ['fix the hook claude runs'],
      );
      expect(found).toBe(pid);
    },
  );

  it.runIf(linux)(
    "hookAgentProcess: the MCP server's agent, whose own command line holds a lone `mcp` (sessions55: Claude Code is no launcher)",
    () => {
      // Claude Code started with a prompt of one word, `mcp`, runs `sh -c 'exec <command> mcp'`
      // (init's entry for a command given as a string): the probe's parent is the agent
      const direct = agentAndFound(
        (probe) => `'/bin/sh', ['-c', ${JSON.stringify(`exec ${probe} mcp`)}]`,
        ['mcp'],
      );
      expect(direct.found).toBe(direct.pid);
      // and past a launcher of `loopguard mcp` (`npx loopguard mcp`), to the agent
      const launched = agentAndFound(
        (probe) => {
          const launcher = `require('node:child_process').spawnSync('/bin/sh', ['-c', ${JSON.stringify(`exec ${probe} mcp`)}], { stdio: 'inherit' })`;
          return `process.execPath, ['-e', ${JSON.stringify(launcher)}, 'loopguard@0.1.0', 'mcp']`;
        },
        ['mcp'],
      );
      expect(launched.found).toBe(launched.pid);
    },
  );

  it.runIf(linux)(
    "hookAgentProcess: past the user's own shell, whatever its name (review54: Codex's hook runner falls back to `$SHELL -lc`, fish's too)",
    () => {
      // agent → $SHELL -lc (a shell no list names: bash under another name) → this probe; two
      // commands, so that the shell stays the probe's parent (a lone one may be exec'd)
      const { pid, found } = agentAndFound(
        (probe) => `process.env.SHELL, ['-lc', ${JSON.stringify(`${probe} hook codex; true`)}]`,
        [],
        (dir) => {
          symlinkSync('/bin/bash', join(dir, 'fish'));
          return { ...process.env, SHELL: join(dir, 'fish') };
        },
      );
      expect(found).toBe(pid);
    },
  );

  it('given as a function, is read at the first write only, and once (hook37o: a call that writes nothing reads no /proc)', () => {
    const database = openLoopGuardDatabase(':memory:');
    let reads = 0;
    const sessions = new SqliteHookSessionStore({
      db: database.db,
      agentProcess: () => {
        reads++;
        return { id: 'linux:1:b:2:400:9' };
      },
    });
    sessions.peek(key);
    sessions.get(key);
    sessions.update(key, () => ({ result: null }));
    expect(reads).toBe(0);
    sessions.update(key, () => ({ next: state, result: null }));
    sessions.update(key, () => ({ next: state, result: null }));
    expect(reads).toBe(1);
    expect(column(database)).toBe('linux:1:b:2:400:9');
    database.close();
  });

  it.runIf(linux)(
    "a reading connection's agent_sessions says a running session whose process is gone ended; the file's view keeps running",
    () => {
      const database = openLoopGuardDatabase(':memory:');
      for (const [sessionId, process] of [
        ['alive', { id: idOf(global.process.pid) }],
        ['gone', { id: idOf(global.process.pid, 1) }],
        ['unknown', null],
      ] as const) {
        // two events from the process: told
        for (let event = 0; event < 2; event++)
          new SqliteHookSessionStore({ db: database.db, agentProcess: process }).update(
            { ...key, sessionId },
            () => ({ next: { ...state, nudges: sessionId === 'gone' ? 1 : 0 }, result: null }),
          );
      }
      const verdicts = () =>
        database.db.prepare('SELECT session_id, verdict FROM agent_sessions ORDER BY session_id').all();
      expect(verdicts()).toEqual([
        { session_id: 'alive', verdict: 'running' },
        { session_id: 'gone', verdict: 'running' },
        { session_id: 'unknown', verdict: 'running' },
      ]);
      readLiveSessions(database.db);
      readLiveSessions(database.db);
      expect(verdicts()).toEqual([
        { session_id: 'alive', verdict: 'running' },
        { session_id: 'gone', verdict: 'nudged' },
        { session_id: 'unknown', verdict: 'running' },
      ]);
      expect(
        database.db.prepare("SELECT count(*) FROM agent_sessions WHERE verdict = 'running'").pluck().get(),
      ).toBe(2);
      expect(
        database.db
          .prepare("SELECT count(*) FROM main.agent_sessions WHERE verdict = 'running'")
          .pluck()
          .get(),
      ).toBe(3);
      database.close();
    },
  );
});

describe('readLiveSessions on a crafted database (trust47)', () => {
  // A database loopguard takes for its own yet did not make (a project's `.loopguard/state.db`
  // shipped in an archive: untracked, so accepted) names the columns of its own `agent_sessions`
  // view. Spliced unquoted into the temporary view's SQL, a name holding `"` ran statements of the
  // file's choosing on every reader's connection, read-only as it is: `VACUUM INTO` wrote a file
  // anywhere the user can (`~/.ssh/authorized_keys`, a shell profile), from `status`, the
  // dashboard, the status line and `scan`.
  it('runs nothing a column name says, and reads the sessions', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lg-trust47-'));
    const path = join(dir, 'state.db');
    const written = join(dir, 'written-by-the-database');
    const database = openLoopGuardDatabase(path);
    new SqliteHookSessionStore({ db: database.db, agentProcess: null }).update(
      { agent: 'claude', sessionId: 's1', projectDir: '/repo' },
      () => ({ next: state, result: null }),
    );
    const view = database.db
      .prepare("SELECT sql FROM sqlite_master WHERE type = 'view' AND name = 'agent_sessions'")
      .pluck()
      .get() as string;
    const name = `x" FROM main.hook_sessions; VACUUM INTO '${written}'; SELECT 1 AS "y`;
    database.db.exec(`${view.replace('agent_sessions', 'crafted_sessions')};
      DROP VIEW agent_sessions;
      CREATE VIEW agent_sessions AS SELECT *, 1 AS "${name.replaceAll('"', '""')}" FROM crafted_sessions;`);
    database.close();
    const reading = openLoopGuardDatabase(path, { readonly: true });
    readLiveSessions(reading.db);
    expect(existsSync(written)).toBe(false);
    expect(reading.db.prepare('SELECT session_id FROM agent_sessions').pluck().all()).toEqual(['s1']);
    reading.close();
    rmSync(dir, { recursive: true, force: true });
  });
});

describe('otherLiveProcess (trust50): another agent process still running under the session id', () => {
  const key = { agent: 'claude' as const, sessionId: 's1', projectDir: '/repo' };
  const recordedBy = (database: ReturnType<typeof openLoopGuardDatabase>, id: string) =>
    new SqliteHookSessionStore({ db: database.db, agentProcess: { id } }).update(key, () => ({
      next: state,
      result: null,
    }));

  it.runIf(linux)(
    'is the recorded process while it runs apart from this one; not once it is gone, nor this one',
    async () => {
      const other = spawn('sleep', ['30']);
      try {
        const database = openLoopGuardDatabase(':memory:');
        recordedBy(database, idOf(other.pid as number));
        const ours = new SqliteHookSessionStore({ db: database.db, agentProcess: { id: idOf(process.pid) } });
        expect(ours.otherLiveProcess(key)).toBe(idOf(other.pid as number));
        expect(ours.otherLiveProcess({ ...key, sessionId: 'new' })).toBeNull();
        const itself = new SqliteHookSessionStore({
          db: database.db,
          agentProcess: { id: idOf(other.pid as number) },
        });
        expect(itself.otherLiveProcess(key)).toBeNull();
        // not known here: the events are the session's, as before
        expect(
          new SqliteHookSessionStore({ db: database.db, agentProcess: null }).otherLiveProcess(key),
        ).toBeNull();
        const exited = new Promise((resolve) => other.once('exit', resolve));
        other.kill('SIGKILL');
        await exited;
        expect(ours.otherLiveProcess(key)).toBeNull();
        database.close();
      } finally {
        other.kill('SIGKILL');
      }
    },
  );

  it.runIf(linux)(
    'is not an ancestor of this one (the model resuming its own session in a child; a subreaper)',
    () => {
      const database = openLoopGuardDatabase(':memory:');
      recordedBy(database, idOf(process.ppid));
      const ours = new SqliteHookSessionStore({ db: database.db, agentProcess: { id: idOf(process.pid) } });
      expect(ours.otherLiveProcess(key)).toBeNull();
      database.close();
    },
  );
});
