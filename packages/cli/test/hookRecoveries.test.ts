import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from '../src/main.js';
import { EXIT_CODES } from '../src/terminal/exitCodes.js';
import { bufferedIo, dashboardAccess } from './helpers.js';
import { claudeFailingCall, hookCall, tempProject } from './hookHelpers.js';

const bin = fileURLToPath(new URL('../dist/bin.js', import.meta.url));
const db = '.loopguard/state.db';

/** Drives a Claude Code session that repeats a failing command until the hook stops it. */
async function loopUntilStopped(dir: string, session: string): Promise<void> {
  for (let n = 1; n <= 8; n++) {
    const { pre, post } = claudeFailingCall(dir, session, n);
    if ((await hookCall(dir, 'claude', pre)).stdout.includes('"continue":false')) return;
    if ((await hookCall(dir, 'claude', post)).stdout.includes('"continue":false')) return;
  }
  throw new Error('the hook never stopped the session');
}

async function run(dir: string, args: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = bufferedIo({ cwd: dir });
  const code = await runCli(args, io);
  return { code, out: io.out(), err: io.err() };
}

/** Starts `loopguard serve` in `dir` and resolves with its address and a function that stops it. */
function startServe(
  dir: string,
): Promise<{ url: string; auth: { headers: Record<string, string> }; stop: () => Promise<void> }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, 'serve', '--db', db, '--port', '0'], { cwd: dir });
    const exited = new Promise<void>((done) => child.on('exit', () => done()));
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const printed = /loopguard dashboard: (http:\S+)/.exec(out)?.[1];
      if (printed)
        resolve({
          ...dashboardAccess(printed),
          stop: async () => {
            child.kill('SIGTERM');
            await exited;
          },
        });
    });
    child.on('exit', (code) => reject(new Error(`serve exited with ${code}: ${out}`)));
  });
}

interface RecoveryJson {
  topic: string;
  action: string;
  taskId: string | null;
  metadata: Record<string, unknown>;
}

describe('a hook session on the recoveries page', () => {
  it('lists the nudge and the stop in `loopguard recoveries`, keyed by the session, and filters by topic and task', async () => {
    const dir = tempProject();
    await loopUntilStopped(dir, 's1');

    const table = await run(dir, ['recoveries', '--db', db]);
    expect(table.code).toBe(EXIT_CODES.ok);
    const actions = [...table.out.matchAll(/\| (stop|nudge)\s+\| (\S+)\s+\|/g)].map((m) => [m[1], m[2]]);
    expect(actions).toEqual([
      ['stop', 'claude:s1'],
      ['nudge', 'claude:s1'],
    ]);
    // the tool call each fell at, as status, the dashboard and scan say it (a session has no attempts)
    // sess68: the loop type in words, as the dashboard says it
    expect(table.out).toMatch(/\| stop\s+\| claude:s1\s+\| same error\s+\| call 4\s+\|/);
    expect(table.out).toMatch(/\| nudge\s+\| claude:s1\s+\| same error\s+\| call 3\s+\|/);

    const page = JSON.parse((await run(dir, ['recoveries', '--db', db, '--json'])).out) as {
      recoveries: RecoveryJson[];
    };
    expect(page.recoveries.map((r) => [r.topic, r.action, r.taskId])).toEqual([
      ['loop_stop', 'stop', 'claude:s1'],
      ['loop_nudge', 'nudge', 'claude:s1'],
    ]);
    expect(page.recoveries[0]?.metadata).toMatchObject({ sessionId: 's1', agent: 'claude' });

    const stops = JSON.parse(
      (await run(dir, ['recoveries', '--db', db, '--topic', 'loop_stop', '--json'])).out,
    );
    expect(stops.recoveries.map((r: RecoveryJson) => r.action)).toEqual(['stop']);
    const byTask = JSON.parse(
      (await run(dir, ['recoveries', '--db', db, '--task', 'claude:s1', '--json'])).out,
    );
    expect(byTask.recoveries.map((r: RecoveryJson) => r.action)).toEqual(['stop', 'nudge']);
    const other = JSON.parse(
      (await run(dir, ['recoveries', '--db', db, '--task', 'claude:s2', '--json'])).out,
    );
    expect(other.recoveries).toEqual([]);
  });

  it("shows the stop in `loopguard serve`'s /recoveries and counts it in /metrics, the nudged loop once", async () => {
    const dir = tempProject();
    await loopUntilStopped(dir, 's9');
    const { url, auth, stop } = await startServe(dir);
    try {
      const body = (await (await fetch(new URL('/recoveries?topic=loop_stop', url), auth)).json()) as {
        recoveries: RecoveryJson[];
      };
      expect(body.recoveries).toMatchObject([
        { topic: 'loop_stop', action: 'stop', taskId: 'claude:s9', metadata: { sessionId: 's9' } },
      ]);
      const all = (await (await fetch(new URL('/recoveries', url), auth)).json()) as {
        recoveries: RecoveryJson[];
      };
      expect(all.recoveries.map((r) => r.action)).toEqual(['stop', 'nudge']);
      const metrics = await (await fetch(new URL('/metrics', url), auth)).text();
      expect(metrics).toContain('loopguard_recoveries_total{action="stop"} 1');
      expect(metrics).toContain('loopguard_recoveries_total{action="nudge"} 1');
      // the stop ends the loop the nudge began: one loop
      const loops = [...metrics.matchAll(/^loopguard_loops_detected_total\{[^}]*\} (\d+)$/gm)];
      expect(loops.map((m) => Number(m[1])).reduce((a, b) => a + b, 0)).toBe(1);
    } finally {
      await stop();
    }
  });
});
