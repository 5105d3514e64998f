import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { expect } from 'vitest';
import { openStatusReader } from '../src/commands/openStatusReader.js';
import { serveDashboard } from '../src/commands/serveDashboard.js';
import { runCli } from '../src/main.js';
import { statuslineMain } from '../src/statusline/statuslineMain.js';
import { EXIT_CODES } from '../src/terminal/exitCodes.js';
import { bufferedIo } from './helpers.js';
import { hookState, sessionVerdicts } from './hookHelpers.js';

/**
 * One story from every door (issue 35): in the project `dir` whose hooks stopped its one session at
 * tool call `stopCall`, `loopguard status --session` (run in a subfolder, without flags) and the
 * dashboard's `/sessions` (its store found without flags) say the session was stopped by loopguard
 * at that call, in the same sentence.
 * @returns what `status --session --json` printed.
 */
export async function expectStatusAndDashboard(
  dir: string,
  stopCall: unknown,
): Promise<Record<string, unknown>> {
  const sessionId = String(hookState(dir).sessions[0]?.session_id);
  const io = bufferedIo({ cwd: join(dir, 'src'), env: { NO_COLOR: '1' } });
  mkdirSync(join(dir, 'src'), { recursive: true });
  expect(await runCli(['status', '--session', sessionId, '--json'], io)).toBe(EXIT_CODES.sessionStopped);
  const status = JSON.parse(io.out());
  expect(status).toMatchObject({ verdict: 'stopped', stop: { topic: 'loop_stop', call: stopCall } });
  expect(status.summary).toContain(`stopped by loopguard at call ${stopCall}`);
  const store = await openStatusReader({}, bufferedIo({ cwd: dir }));
  const server = await serveDashboard({ reader: store.reader, port: 0 });
  try {
    const page = (await (await fetch(`${server.url}sessions?sessionId=${sessionId}`)).json()) as {
      sessions: { verdict: string; stop: { call: number } | null; summary: string }[];
    };
    expect(page.sessions).toHaveLength(1);
    expect(page.sessions[0]).toMatchObject({
      verdict: 'stopped',
      stop: { call: stopCall },
      summary: status.summary,
    });
  } finally {
    await server.close();
    await store.close();
  }
  return status;
}

/** The configuration a repository's root holds in the subfolder tests: a $2 budget per session. */
export const ROOT_BUDGET = 'spend:\n  session:\n    maxCostUsd: 2\n';

/**
 * A session a real CLI ran in `sub`, a subfolder of the repository `dir` whose root holds
 * `ROOT_BUDGET` (qa47), and that ended without a loop: recorded once, in the root's project, under
 * its budget, with nothing of loopguard's in the subfolder, and ended when the CLI exited
 * (`SessionEnd`: no door says it is running); `status --session` run in the subfolder says so.
 */
export async function expectSessionOfTheRoot(dir: string, sub: string, agent: string): Promise<void> {
  expect(existsSync(join(sub, '.loopguard'))).toBe(false);
  const { sessions } = hookState(dir);
  expect(sessions).toMatchObject([{ agent, project_dir: dir }]);
  expect(sessionVerdicts(dir)).toEqual([[agent, 'clean']]);
  const io = bufferedIo({ cwd: sub, env: { NO_COLOR: '1' } });
  expect(await runCli(['status', '--session', String(sessions[0]?.session_id), '--json'], io)).toBe(0);
  expect(JSON.parse(io.out())).toMatchObject({
    verdict: 'clean',
    projectDir: dir,
    budget: { maxCostUsd: 2 },
  });
}

/**
 * Every door's story of every session of the project `dir`, field by field (sessions53): for each
 * session `status --json` lists, `status`'s table holds its sentence, `status --session` (run in
 * `dir`, no flags) says the same sentence, verdict, tool calls and stop call with its exit status (10
 * stopped by loopguard, 11 on spend, else 0), the dashboard's `/sessions` the same, `scan --json`'s
 * record of its transcript (`transcripts`, else the agents' own places under `env`'s) the same (with no difference to explain), and for a Claude Code main
 * session the status line ends with the sentence (or, where `status` says the hooks fail open on
 * the project's configuration, says that in its words).
 * @returns the sentences by session id.
 */
export async function expectOneStory(
  dir: string,
  { env = {}, transcripts = [] }: { env?: Record<string, string>; transcripts?: string[] } = {},
): Promise<Map<string, string>> {
  const io = (cwd = dir) => bufferedIo({ cwd, env: { NO_COLOR: '1', ...process.env, ...env } });
  const json = io();
  expect(await runCli(['status', '--json', '--limit', '100'], json), json.err()).toBe(EXIT_CODES.ok);
  type Listed = {
    agent: string;
    sessionId: string;
    parentSessionId: string | null;
    verdict: string;
    summary: string;
    toolCalls: number | null;
    stop: { call: number | null } | null;
  };
  const body = JSON.parse(json.out());
  const listed = body.sessions.sessions as Listed[];
  // where status says the hooks fail open on the project's configuration, the status line says it
  // in the same words instead of the sentence (sessions55)
  const failingOpen = /^failing open in this project \((.*)\): loopguard guards no session here/.exec(
    String(body.hooksOff ?? ''),
  )?.[1];
  expect(listed.length).toBeGreaterThan(0);
  const table = io();
  expect(await runCli(['status', '--limit', '100'], table), table.err()).toBe(EXIT_CODES.ok);
  const store = await openStatusReader({}, io());
  const server = await serveDashboard({ reader: store.reader, port: 0 });
  const scan = io();
  expect(await runCli(['scan', ...transcripts, '--json', '--no-cache'], scan), scan.err()).toBe(
    EXIT_CODES.ok,
  );
  const scanned = JSON.parse(scan.out()).sessions as Array<{
    agent: string;
    sessionId: string;
    toolCalls: number;
    record?: {
      verdict: string;
      summary: string;
      toolCalls: number | null;
      stop: { call: number | null } | null;
    };
    recordDiffers?: string;
  }>;
  const stories = new Map<string, string>();
  try {
    for (const session of listed) {
      const what = `${session.agent} ${session.sessionId}`;
      stories.set(session.sessionId, session.summary);
      // a subagent's spend is its session's (its budget, its line's dollars): no door gives the
      // subagent's sentence dollars or tokens of its own (sessions55)
      if (session.parentSessionId !== null) expect(session.summary, what).not.toMatch(/\$|tokens/);
      expect(table.out().replace(/\s+/g, ' '), what).toContain(session.summary);
      const one = io();
      const code = await runCli(['status', '--session', session.sessionId, '--json'], one);
      expect(code, what).toBe(
        session.verdict === 'stopped'
          ? EXIT_CODES.sessionStopped
          : session.verdict === 'stopped_on_spend'
            ? EXIT_CODES.sessionStoppedOnSpend
            : EXIT_CODES.ok,
      );
      const detail = JSON.parse(one.out());
      expect(detail, what).toMatchObject({
        verdict: session.verdict,
        summary: session.summary,
        toolCalls: session.toolCalls,
      });
      expectDeniedCallsNeverRan(detail.entries, what);
      const page = (await (await fetch(`${server.url}sessions?sessionId=${session.sessionId}`)).json()) as {
        sessions: Listed[];
      };
      expect(
        page.sessions.map((s) => [s.verdict, s.summary, s.toolCalls, s.stop?.call ?? null]),
        what,
      ).toEqual([[session.verdict, session.summary, session.toolCalls, session.stop?.call ?? null]]);
      const run = scanned.find((s) => s.agent === session.agent && s.sessionId === session.sessionId);
      expect(run?.record, what).toMatchObject({
        verdict: session.verdict,
        summary: session.summary,
        toolCalls: session.toolCalls,
      });
      expect(run?.recordDiffers, what).toBeUndefined();
      if (session.agent === 'claude' && session.parentSessionId === null) {
        let line = '';
        const input = JSON.stringify({
          session_id: session.sessionId,
          cwd: dir,
          workspace: { project_dir: dir },
        });
        expect(await statuslineMain(Readable.from([input]), (text) => (line += text), { ...env })).toBe(0);
        if (failingOpen !== undefined)
          expect(line.trim(), what).toBe(
            `loopguard: failing open in this project (${failingOpen}) until that file is fixed`,
          );
        else expect(line.trim(), what).toMatch(new RegExp(`^loopguard: ${escapeRegExp(session.summary)}`));
      }
    }
  } finally {
    await server.close();
    await store.close();
  }
  return stories;
}

/**
 * A stop that refused its call before it ran (story56) tells the model so, at the call `status`
 * names, and quotes no output of that call (it gave none): the message, the stop's call and the
 * calls that ran tell one story.
 */
function expectDeniedCallsNeverRan(
  entries: Array<{ topic: string; content: string; metadata: Record<string, unknown> }>,
  what: string,
): void {
  for (const entry of entries) {
    if (entry.topic !== 'loop_stop' || entry.metadata.deniedBeforeRun !== true) continue;
    const call = Number(entry.metadata.toolCall);
    expect(entry.content, what).toMatch(
      new RegExp(`^Stopped \\(\\w+\\): call ${call} was refused before it ran`),
    );
    expect(entry.content, what).not.toContain(`- call ${call}: `);
  }
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
