import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';
import { type GeminiTurn, startFakeGeminiApi } from './fakeGeminiApi.js';
import { ensureGeminiCli, geminiEnv, runGeminiPrint } from './geminiCli.js';
import { expectOnlyItsOwnCall, heldTurn } from './heldTurn.js';
import { hookState } from './hookHelpers.js';
import { loopguard, tempRepo } from './runHelpers.js';

// trust52: trust50's session boundary with the real Gemini CLI 0.61.0: `gemini --resume <id>`
// resumes under the same session id (its `resolveSessionId`), so the model of any session can run
// a second process on a running one, whose calls would be judged, counted and billed as its own.
let gemini = '';
beforeAll(async () => {
  gemini = await ensureGeminiCli();
}, 900_000);

const SESSION = '5e55a0e5-0000-4000-8000-000000000052';
const failing: GeminiTurn = { tool: 'run_shell_command', args: { command: 'cat missing.txt' } };

describe('a second Gemini CLI process resuming a running session (--resume <id>)', () => {
  it('is ended at its first call, and none of its calls reaches the running session', async () => {
    const { dir } = tempRepo('');
    const init = await loopguard(dir, ['init', 'gemini', '--project']);
    expect(init.code, init.stderr).toBe(0);
    const home = mkdtempSync(join(tmpdir(), 'loopguard-gemini-home-'));
    const { held, release, sessionWaits, waiting } = heldTurn();
    const api = await startFakeGeminiApi(async (turn, contents) => {
      // the second process's requests carry its prompt
      if (JSON.stringify(contents).includes('SECOND')) return turn < 8 ? failing : { text: 'done' };
      if (turn === 0) return { tool: 'run_shell_command', args: { command: 'echo one > one.txt' } };
      waiting();
      await held; // the session is running, waiting for its model, while the second process runs
      return { text: 'done' };
    });
    try {
      const session = runGeminiPrint(gemini, dir, api.url, home, { extraArgs: ['--session-id', SESSION] });
      await sessionWaits;
      expect(hookState(dir).sessions).toMatchObject([{ session_id: SESSION, tool_calls: 1 }]);
      const second = await execa(
        process.execPath,
        [
          gemini,
          '-p',
          'SECOND: read missing.txt',
          '--resume',
          SESSION,
          '--output-format',
          'stream-json',
          '--yolo',
        ],
        { cwd: dir, reject: false, stdin: 'ignore', timeout: 240_000, env: geminiEnv(api.url, home) },
      );
      release();
      const { result } = await session;
      expect(result.exitCode, String(result.stderr)).toBe(0);
      const output = `${second.stdout}${second.stderr}`;
      expect(output).toContain('already running in another process');
      expectOnlyItsOwnCall(dir, SESSION);
    } finally {
      release();
      await api.close();
    }
  }, 600_000);
});
