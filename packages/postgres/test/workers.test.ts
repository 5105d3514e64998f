import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { type Attempt, RECOVERY_TOPICS, SharedLoopDetector } from '@loopguard/core';
import { describe, expect, it } from 'vitest';
import { judgeAttempts } from '../../core/src/attempts/loopDetection.js';
import { openPostgresStorage } from '../src/index.js';
import { freshSchema, useCluster } from './cluster.js';

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

interface Run {
  child: ChildProcess;
  lines: Record<string, unknown>[];
  exited: Promise<{ code: number | null; stderr: string }>;
}

/** Starts a fixture with node; collects its JSON stdout lines. */
function start(name: string, args: string[]): Run {
  const child = spawn(process.execPath, [fixture(name), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: Record<string, unknown>[] = [];
  let buffer = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    let newline = buffer.indexOf('\n');
    while (newline >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      if (line.trim() !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
      newline = buffer.indexOf('\n');
    }
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<{ code: number | null; stderr: string }>((resolve) => {
    child.on('exit', (code) => resolve({ code, stderr }));
  });
  return { child, lines, exited };
}

/** Copies every deleted attempt to attempts_archive, so the test can account for every attempt. */
const ARCHIVE_SQL = `
CREATE TABLE attempts_archive (LIKE attempts);
CREATE FUNCTION archive_attempt() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN INSERT INTO attempts_archive SELECT OLD.*; RETURN OLD; END $$;
CREATE TRIGGER attempts_archive BEFORE DELETE ON attempts FOR EACH ROW EXECUTE FUNCTION archive_attempt();`;

describe('workers on several processes sharing one PostgreSQL', () => {
  const cluster = useCluster();

  it('8 workers hammering 50 tasks for ~10 s: no attempt lost, exactly one recovery per loop, no deadlock', async () => {
    const schema = freshSchema();
    const storage = await openPostgresStorage({ connectionString: cluster().connectionString, schema });
    await storage.pool.query(ARCHIVE_SQL);
    for (let i = 0; i < 50; i++) await storage.stateMachine.upsertTask({ id: `T${i}` });

    const runs = Array.from({ length: 8 }, (_, w) =>
      start('hammer.mjs', [cluster().connectionString, schema, String(w), '10000', '50']),
    );
    const exits = await Promise.all(runs.map((r) => r.exited));
    for (const exit of exits) expect(exit, exit.stderr).toMatchObject({ code: 0 });
    const lines = runs.flatMap((r) => r.lines);
    const acked = lines.filter((l) => 'ack' in l).map((l) => l.ack as string);
    const applied = lines.filter((l) => 'applied' in l).map((l) => String(l.applied));
    expect(runs.every((r) => r.lines.some((l) => 'done' in l))).toBe(true);
    expect(acked.length).toBeGreaterThan(500);

    // every acknowledged attempt is stored exactly once: still in attempts, or cleared by a recovery
    const { rows } = await storage.pool.query<{ session_id: string; n: number }>(
      `SELECT session_id, count(*)::int AS n FROM (
         SELECT session_id FROM attempts UNION ALL SELECT session_id FROM attempts_archive) AS all_attempts
       GROUP BY session_id`,
    );
    const stored = new Map(rows.map((r) => [r.session_id, r.n]));
    expect(acked.filter((id) => stored.get(id) !== 1)).toEqual([]);
    expect(stored.size).toBe(acked.length);

    // every recovery written was reported applied by exactly one worker
    const entries = await storage.stateMachine.listContextEntries({ topics: RECOVERY_TOPICS });
    expect(entries.map((e) => e.id).sort()).toEqual([...applied].sort());
    expect(new Set(applied).size).toBe(applied.length);
    expect(entries.length).toBeGreaterThan(10);
    expect(entries.filter((e) => Number((e.relatedTasks[0] ?? 'T99').slice(1)) >= 15)).toEqual([]);

    // each recovery rests on a loop of its own: its evidence judges as that loop, and no attempt
    // is evidence for two recoveries
    const seen = new Set<string>();
    for (const entry of entries) {
      const evidence = entry.metadata.evidence as Attempt[];
      const taskId = entry.relatedTasks[0] as string;
      const judged = judgeAttempts({
        taskId,
        attempts: evidence,
        options: {
          maxAttempts: 3,
          maxAttemptsBeforeForceNext: 5,
          enableAutoUnblock: true,
          attemptWindow: 3_600_000,
          maxEvidence: 50,
        },
        grantActive: entry.topic === 'loop_escalation',
        now: Math.max(...evidence.map((a) => a.timestamp)),
      });
      expect(judged.loopType).toBe(entry.metadata.loopType);
      for (const a of evidence) {
        expect(seen.has(a.sessionId)).toBe(false);
        seen.add(a.sessionId);
      }
    }

    // no loop is left unrecovered
    const detector = new SharedLoopDetector(storage, { maxAttempts: 3, maxAttemptsPerTask: null });
    for (let i = 0; i < 50; i++) expect((await detector.detectLoop(`T${i}`)).isLooping).toBe(false);
    await storage.close();
  }, 90_000);

  it('a worker killed mid-transaction loses nothing acknowledged, leaves nothing half-written, and holds no lock', async () => {
    const schema = freshSchema();
    const storage = await openPostgresStorage({ connectionString: cluster().connectionString, schema });
    await storage.stateMachine.upsertTask({ id: 'T-kill' });
    const run = start('killable.mjs', [cluster().connectionString, schema, 'T-kill']);
    await new Promise<void>((resolve, reject) => {
      const timer = setInterval(() => {
        if (run.lines.some((l) => l.inTransaction === true)) {
          clearInterval(timer);
          resolve();
        }
      }, 20);
      run.exited.then(({ stderr }) => {
        clearInterval(timer);
        reject(new Error(`the worker exited before its transaction: ${stderr}`));
      });
    });
    run.child.kill('SIGKILL');
    await run.exited.catch(() => undefined);

    const attempts = await storage.attempts.listSince('T-kill', 0);
    expect(attempts.map((a) => a.sessionId)).toEqual(['acked-0', 'acked-1', 'acked-2']);
    expect(await storage.stateMachine.listContextEntries()).toEqual([]);
    // the killed worker's advisory lock went with its connection: the recovery goes through
    const detector = new SharedLoopDetector(storage, { maxAttempts: 3 });
    const outcome = await detector.recoverIfLooping('T-kill');
    expect(outcome).toMatchObject({ applied: true, action: 'force_next' });
    expect(await storage.stateMachine.listContextEntries()).toHaveLength(1);
    await storage.close();
  });
});
