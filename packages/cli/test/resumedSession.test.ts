import { Readable } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { answerHookEvent } from '../src/hook/runHook.js';
import { runCli } from '../src/main.js';
import { statuslineMain } from '../src/statusline/statuslineMain.js';
import { bufferedIo } from './helpers.js';
import { claudeEvent, claudeFailingCall, tempProject } from './hookHelpers.js';

// A Claude Code session stopped by loopguard ends; `claude --resume <id>` goes on under the same
// session id, and its row. A stop found there after its call ran is a stop of its own, not a call
// denied after the first: every door said "1 more call refused after the stop" of it (sess64).

// the status line runs the source, the hook calls the modules: one build id for the sealed configuration
vi.mock('../src/buildId.js', () => import('../dist/buildId.js'));

const claude = async (dir: string, event: unknown) =>
  answerHookEvent('claude', JSON.stringify(event), { env: {}, cwd: dir });

/** Calls `from`.. of `command` failing alike, as Claude Code sends them: a denied call ends the process. */
async function failingCalls(dir: string, from: number, command: string): Promise<number> {
  for (let n = from; ; n++) {
    const call = claudeFailingCall(dir, 's1', n, command);
    if ((await claude(dir, call.pre)) !== '') return n;
    if ((await claude(dir, call.post)).includes('"continue":false')) return n;
  }
}

/** The sentence `status` and the status line print for the project's session `s1`. */
async function doors(dir: string): Promise<{ status: string; line: string }> {
  const io = bufferedIo({ cwd: dir, env: { NO_COLOR: '1' } });
  await runCli(['status', '--json'], io);
  const { sessions } = JSON.parse(io.out()) as { sessions: { sessions: Array<{ summary: string }> } };
  const status = sessions.sessions[0]?.summary;
  let line = '';
  await statuslineMain(
    Readable.from([JSON.stringify({ session_id: 's1', cwd: dir, workspace: { project_dir: dir } })]),
    (text) => {
      line += text;
    },
    {},
  );
  return { status: status ?? '', line: line.trim() };
}

describe('a Claude Code session resumed after its stop', () => {
  it('stopped again after a call ran: "stopped again at call 5", no call said denied', async () => {
    const dir = tempProject();
    expect(await failingCalls(dir, 1, 'cat missing.txt')).toBe(4); // nudged at 3, call 4 denied
    await claude(dir, claudeEvent(dir, 's1', 'SessionEnd', { reason: 'other' }));
    // resumed: another file, the same error, found after the call ran
    expect(await failingCalls(dir, 5, 'cat other.txt')).toBe(5);
    const said =
      'stopped by loopguard at call 4 (same error), 4 tool calls ran, stopped again at call 5, 1 nudge';
    expect(await doors(dir)).toEqual({ status: said, line: `loopguard: ${said}` });
  });

  it('its first call repeating the stopped one, denied: "1 more call refused after the stop", as before', async () => {
    const dir = tempProject();
    await failingCalls(dir, 1, 'cat missing.txt');
    await claude(dir, claudeEvent(dir, 's1', 'SessionEnd', { reason: 'other' }));
    expect(await failingCalls(dir, 5, 'cat missing.txt')).toBe(5);
    const said =
      'stopped by loopguard at call 4 (same error), 3 tool calls ran, 1 more call refused after the stop, 1 nudge';
    expect(await doors(dir)).toEqual({ status: said, line: `loopguard: ${said}` });
  });
});
