import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { openStatusReader } from '../src/commands/openStatusReader.js';
import { serveDashboard } from '../src/commands/serveDashboard.js';
import { EXIT_CODES } from '../src/exitCodes.js';
import { runCli } from '../src/main.js';
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
