import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from '../src/main.js';
import type { ScanReport } from '../src/scan/scanReport.js';
import { EXIT_CODES } from '../src/terminal/exitCodes.js';
import { claudeSession, SCAN_FIXTURES, type Script } from './agentTranscripts.js';
import { ccusageTotals } from './ccusage.js';
import { ensureClaudeCode, runClaudePrint } from './claudeCode.js';
import { startFakeAnthropicApi } from './fakeAnthropicApi.js';
import { bufferedIo } from './helpers.js';
import { tempRepo } from './runHelpers.js';

// Side by side with ccusage (pinned, installed on demand, offline): the same transcripts, found by
// both in the agents' default places of the same home, give the same token total per session.

/** loopguard scan's token total of every session under `home`, keyed as {@link ccusageTotals} keys them. */
async function scanTotals(home: string): Promise<Map<string, number | null>> {
  const io = bufferedIo({ cwd: mkdtempSync(join(tmpdir(), 'loopguard-ccusage-cwd-')), env: { HOME: home } });
  expect(await runCli(['scan', '--json'], io), io.err()).toBe(EXIT_CODES.ok);
  const report = JSON.parse(io.out()) as ScanReport;
  return new Map(
    report.sessions.map((s) => [
      `${s.agent} ${s.agent === 'gemini' ? s.sessionId : basename(s.file).replace(/\.jsonl$/, '')}`,
      s.tokens,
    ]),
  );
}

/**
 * A Claude Code transcript with the records where counting can differ: one reply written as three
 * records with tool results in between, a reply retried under another request id, a reply without
 * a request id written twice, an API error, a synthetic reply, a sidechain reply in the main file,
 * and cache reads and writes.
 */
function edgeCaseTranscript(sessionId: string): string {
  let time = Date.parse('2026-11-20T10:00:00Z');
  const record = (fields: Record<string, unknown>) => {
    time += 1000;
    return JSON.stringify({
      parentUuid: null,
      isSidechain: false,
      cwd: '/home/dev/edge',
      sessionId,
      version: '2.1.330',
      uuid: `u${time}`,
      timestamp: new Date(time).toISOString(),
      ...fields,
    });
  };
  const usage = (input: number, output: number, read: number, written: number) => ({
    input_tokens: input,
    output_tokens: output,
    cache_read_input_tokens: read,
    cache_creation_input_tokens: written,
  });
  const reply = (id: string, requestId: string | undefined, block: unknown, used: unknown, extra = {}) =>
    record({
      type: 'assistant',
      requestId,
      message: { id, role: 'assistant', model: 'claude-sonnet-4-5', content: [block], usage: used },
      ...extra,
    });
  const bash = (id: string, command: string) => ({ type: 'tool_use', id, name: 'Bash', input: { command } });
  const result = (id: string) =>
    record({
      type: 'user',
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'ok' }] },
    });
  const text = (t: string) => ({ type: 'text', text: t });
  return `${[
    record({ type: 'user', message: { role: 'user', content: 'Fix it.' } }),
    reply('msg_1', 'req_1', text('Looking.'), usage(10, 5, 1000, 200)),
    reply('msg_1', 'req_1', bash('tu_1', 'ls'), usage(10, 5, 1000, 200)),
    result('tu_1'),
    reply('msg_1', 'req_1', bash('tu_2', 'pwd'), usage(10, 5, 1000, 200)),
    result('tu_2'),
    reply('msg_2', 'req_2', text('Again.'), usage(3, 4, 500, 0)),
    reply('msg_2', 'req_3', text('Again.'), usage(3, 4, 500, 0)),
    reply('msg_3', undefined, text('x'), usage(1, 1, 0, 0)),
    reply('msg_3', undefined, text('x'), usage(1, 1, 0, 0)),
    reply('msg_4', 'req_4', text('API Error: 500'), usage(0, 0, 0, 0), { isApiErrorMessage: true }),
    record({
      type: 'assistant',
      message: {
        id: 'msg_5',
        role: 'assistant',
        model: '<synthetic>',
        content: [text('…')],
        usage: usage(0, 0, 0, 0),
      },
    }),
    reply('msg_6', 'req_6', text('sub'), usage(7, 7, 70, 7), { isSidechain: true }),
    reply('msg_7', 'req_7', text('Done.'), usage(2, 3, 100, 10)),
  ].join('\n')}\n`;
}

/** A home with the repository's fixtures (written by the pinned CLIs) and the edge cases, each in its CLI's place. */
function fixtureHome(): string {
  const home = mkdtempSync(join(tmpdir(), 'loopguard-ccusage-home-'));
  const claude = join(home, '.claude', 'projects', '-home-dev-app');
  const codex = join(home, '.codex', 'sessions', '2026', '11', '25');
  const gemini = join(home, '.gemini', 'tmp', 'app', 'chats');
  for (const dir of [claude, codex, gemini]) mkdirSync(dir, { recursive: true });
  const fixtures = fileURLToPath(SCAN_FIXTURES);
  for (const name of readdirSync(fixtures)) {
    const [agent, , kind] = name.replace(/\.jsonl$/, '').split('-');
    const to = {
      claude: join(claude, name),
      codex: join(codex, `rollout-2026-11-25T00-00-00-${kind}.jsonl`),
      gemini: join(gemini, `session-2026-11-25T00-00-${kind}.jsonl`),
    }[agent as 'claude' | 'codex' | 'gemini'];
    copyFileSync(join(fixtures, name), to);
  }
  const edge = '11111111-2222-4333-8444-555555555555';
  writeFileSync(join(claude, `${edge}.jsonl`), edgeCaseTranscript(edge));
  return home;
}

describe('loopguard scan and ccusage on the same transcripts', () => {
  it('count the same tokens in every session of the fixtures and the edge cases', async () => {
    const home = fixtureHome();
    const ours = await scanTotals(home);
    expect(ours.size).toBe(7);
    expect(ours.get('claude 11111111-2222-4333-8444-555555555555')).toBe(2437);
    expect(await ccusageTotals(home)).toEqual(ours);
  }, 120_000);

  it('count the same tokens in a session the real Claude Code writes now', async () => {
    const script: Script = (turn) =>
      turn < 6 ? { tool: 'Bash', args: { command: `echo ${turn % 2}` } } : { text: 'Done.' };
    const { home, files } = await claudeSession(script);
    expect(files.length).toBeGreaterThan(0);
    const ours = await scanTotals(home);
    expect([...ours.values()].every((tokens) => tokens !== null && tokens > 0)).toBe(true);
    expect(await ccusageTotals(home)).toEqual(ours);
  }, 600_000);

  it("qa66: a session with a subagent: ccusage adds the subagent's tokens to its session, scan gives them a row of their own; the two add up", async () => {
    // the main thread starts a subagent, which runs two commands; every reply 100 input, 12 output tokens
    const api = await startFakeAnthropicApi((turn, body) => {
      if (!JSON.stringify(body.messages).includes('Fix the bug'))
        return turn < 2
          ? { tool: 'Bash', input: { command: `echo ${turn}`, description: 'Echo' } }
          : { text: 'Sub done.' };
      return turn === 0
        ? {
            tool: 'Agent',
            input: { description: 'sub', prompt: 'Echo twice', subagent_type: 'general-purpose' },
          }
        : { text: 'Done.' };
    });
    const home = mkdtempSync(join(tmpdir(), 'loopguard-ccusage-sub-'));
    try {
      await runClaudePrint(await ensureClaudeCode(), tempRepo('').dir, api.url, home, {
        env: { LOOPGUARD_HOOK: 'off' },
      });
    } finally {
      await api.close();
    }
    const ours = await scanTotals(home);
    const theirs = await ccusageTotals(home);
    const [main, ...others] = [...theirs.keys()];
    expect(others).toEqual([]);
    const subagents = [...ours.keys()].filter((key) => key !== main);
    expect(subagents).toHaveLength(1);
    const sub = ours.get(subagents[0] as string) as number;
    expect(sub).toBe(3 * 112);
    expect((ours.get(main as string) as number) + sub).toBe(theirs.get(main as string));
  }, 600_000);
});
