import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';
import { filesUnder } from './agentTranscripts.js';
import { claudeEnv, ensureClaudeCode, runClaudePrint } from './claudeCode.js';
import { type ScriptedTurn, startFakeAnthropicApi } from './fakeAnthropicApi.js';
import { expectOnlyItsOwnCall, heldTurn } from './heldTurn.js';
import { hookState } from './hookHelpers.js';
import { loopguard, tempRepo } from './runHelpers.js';

// trust50: the model of one session names another running session's id to a CLI of its own
// (`claude -p --resume <id>`, `--session-id <id>`), so that its calls would be judged, counted and
// billed as that session's. A real Claude Code 2.1.330, offline against a scripted Messages API.
let claude = '';
beforeAll(async () => {
  claude = await ensureClaudeCode();
}, 900_000);

const SESSION = '5e55a0e5-0000-4000-8000-000000000050';
const failing: ScriptedTurn = { tool: 'Bash', input: { command: 'cat missing.txt', description: 'Read' } };

// Claude Code refuses `--session-id` of a session it keeps in the same folder ("already in use"),
// but not from a subfolder (its transcripts are kept by folder), where the user's hooks (`init
// claude --user`) record the calls in the repository that holds the running session.
describe.each([
  ['--resume', '', 'loopguard', 'command'],
  ['--resume', '', 'loopguard', 'mcp'],
  ['--session-id', '', 'Claude Code', 'command'],
  ['--session-id', 'src', 'loopguard', 'command'],
])(
  'a second Claude Code process under a running session’s id (%s, in the folder %j: refused by %s; %s hooks)',
  (flag, folder, refuser, mode) => {
    it('is ended at its first call, and none of its calls reaches the running session', async () => {
      const { dir } = tempRepo('');
      const home = mkdtempSync(join(tmpdir(), 'loopguard-claude-home-'));
      const scope = folder === '' ? [] : ['--user'];
      const hooks = mode === 'command' ? ['--command-hooks'] : [];
      const init = await loopguard(dir, ['init', 'claude', ...hooks, ...scope], { HOME: home });
      expect(init.code, init.stderr).toBe(0);
      const { held, release, sessionWaits, waiting } = heldTurn();
      const api = await startFakeAnthropicApi(async (turn, body) => {
        // the second process's requests carry its prompt; the running session's never do
        if (JSON.stringify(body.messages).includes('SECOND')) return turn < 8 ? failing : { text: 'done' };
        if (turn === 0)
          return { tool: 'Bash', input: { command: 'echo one > one.txt', description: 'Write' } };
        waiting();
        await held; // the session is running, waiting for its model, while the second process runs
        return { text: 'done' };
      });
      try {
        mkdirSync(join(dir, 'src'));
        const session = runClaudePrint(claude, dir, api.url, home, { extraArgs: ['--session-id', SESSION] });
        await sessionWaits;
        expect(hookState(dir).sessions).toMatchObject([{ session_id: SESSION, tool_calls: 1 }]);
        const second = await execa(
          claude,
          [
            '-p',
            'SECOND: read missing.txt',
            flag,
            SESSION,
            '--output-format',
            'stream-json',
            '--verbose',
            '--dangerously-skip-permissions',
          ],
          {
            cwd: join(dir, folder),
            reject: false,
            stdin: 'ignore',
            timeout: 240_000,
            env: { ...claudeEnv(api.url, home), LOOPGUARD_HOOK: '' },
          },
        ).then(
          (r) => r,
          () => undefined,
        );
        release();
        const { resultLine } = await session;
        expect(resultLine).toMatchObject({ subtype: 'success', result: 'done' });
        const output = `${second?.stdout ?? ''}${second?.stderr ?? ''}`;
        // Claude Code refuses an id in use by itself, or loopguard ends the second process at its first call
        expect(output).toContain(
          refuser === 'loopguard' ? 'already running in another process' : 'is already in use',
        );
        expectOnlyItsOwnCall(dir, SESSION);
        if (flag === '--resume') expectABranchOfItsOwn(home);
      } finally {
        release();
        await api.close();
      }
    }, 600_000);
  },
);

/**
 * trust53: `--resume` appends the second process's records to the running session's transcript,
 * chained (`parentUuid`) from the record the session had reached: a branch beside the session's
 * own next records, which a reader could tell apart (docs/decisions.md, trust53, on why the
 * budget still counts its reply). Pinned here so that a Claude Code that writes otherwise is seen.
 */
function expectABranchOfItsOwn(home: string): void {
  const [transcript] = filesUnder(join(home, '.claude', 'projects'), `${SESSION}.jsonl`);
  const records = readFileSync(transcript ?? '', 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map(
      (line) =>
        JSON.parse(line) as {
          uuid?: string;
          parentUuid?: string | null;
          type: string;
          message?: { content?: unknown };
        },
    );
  const byUuid = new Map(records.filter((r) => r.uuid !== undefined).map((r) => [r.uuid, r]));
  const ancestors = (uuid: string | undefined) => {
    const seen: string[] = [];
    for (let at = byUuid.get(uuid); at?.parentUuid; at = byUuid.get(at.parentUuid)) seen.push(at.parentUuid);
    return seen;
  };
  const said = (text: string) => (r: (typeof records)[number]) =>
    JSON.stringify(r.message?.content).includes(text);
  const second = records.find((r) => r.type === 'user' && said('SECOND')(r));
  const done = records.find((r) => r.type === 'assistant' && said('"done"')(r));
  expect(second?.uuid).toBeDefined();
  // the session's own reply does not descend from the second process's prompt, and shares its root
  expect(ancestors(done?.uuid)).not.toContain(second?.uuid);
  expect(ancestors(second?.uuid).at(-1)).toBe(ancestors(done?.uuid).at(-1));
}
