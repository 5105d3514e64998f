import { appendFileSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openLoopGuardDatabase } from '@loopguard/sqlite';
import { describe, expect, it } from 'vitest';
import { answerHookEvent } from '../src/hook/runHook.js';
import { McpHookServer } from '../src/mcp/McpHookServer.js';
import {
  claudeEvent,
  claudeFailingCall,
  codexCallOutput,
  codexEvent,
  codexFunctionCall,
  codexRolloutLine,
  geminiEvent,
  mcpHookCall,
  tempProject,
} from './hookHelpers.js';

// trust44: "every off switch works in every mode". The table in docs/decisions.md ("Trust, a fourth
// red-team pass") lists each door and switch; this file tests the cells no other test covered: each
// hook door (Claude Code's, Gemini CLI's and Codex's command hooks, the fast path) under each of the
// three switches (LOOPGUARD_HOOK=off, hook.enabled: false, the session's row enabled = 0), with a
// loop and a spent budget that would otherwise nudge, stop and warn: every answer silent, and
// nothing of the switched-off calls recorded.

/** A project whose budget (1,000 tokens) the session's replies cross, so the spend guard would speak too. */
const CONFIG = 'spend:\n  session:\n    maxTokens: 1000\n';

type Door = 'claude' | 'gemini' | 'codex' | 'mcp';
type Switch = 'env' | 'config' | 'session';

/**
 * The reply that asked for call `n`, of 600 input tokens, as Claude Code writes it in the transcript
 * (with the call's `tool_use_id`, which the spend guard waits for): two of them cross the budget.
 */
function claudeReply(n: number): string {
  const message = {
    id: `msg_${n}`,
    model: 'claude-sonnet-4-5',
    role: 'assistant',
    usage: { input_tokens: 600, output_tokens: 0 },
    content: [{ type: 'tool_use', id: `toolu_${n}`, name: 'Bash', input: {} }],
  };
  return `${JSON.stringify({ type: 'assistant', timestamp: '2026-11-28T10:00:00.000Z', message })}\n`;
}

/**
 * One door's session in `dir`: `call(n)` makes the n-th failing `cat missing.txt` call as the CLI
 * does (its events in order, the transcript or rollout written as the CLI writes it) and returns the
 * hook's answers.
 */
function session(door: Door, dir: string, env: NodeJS.ProcessEnv): (n: number) => Promise<string[]> {
  const ask = (agent: 'claude' | 'gemini' | 'codex', event: unknown) =>
    answerHookEvent(agent, JSON.stringify(event), { env, cwd: dir });
  if (door === 'claude') {
    return async (n) => {
      appendFileSync(join(dir, 'transcript.jsonl'), claudeReply(n));
      const call = claudeFailingCall(dir, 's1', n);
      return [await ask('claude', call.pre), await ask('claude', call.post)];
    };
  }
  if (door === 'mcp') {
    const lines: string[] = [];
    const server = new McpHookServer({ write: (line) => lines.push(line), projectDir: dir, env });
    let id = 0;
    const hook = async (event: Record<string, unknown>) => {
      const before = lines.length;
      server.receive(mcpHookCall(event, ++id));
      await server.idle();
      return JSON.parse(lines[before] as string).result.content[0].text as string;
    };
    return async (n) => {
      const call = claudeFailingCall(dir, 's1', n);
      return [await hook(call.pre), await hook(call.post)];
    };
  }
  if (door === 'gemini') {
    const call = { tool_name: 'run_shell_command', tool_input: { command: 'cat missing.txt' } };
    return async (n) => {
      const before = await ask('gemini', geminiEvent(dir, 'g1', 'BeforeTool', call));
      const tool_response = {
        llmContent: `<untrusted_context>\nOutput: cat: missing.txt: No such file or directory\nExit Code: 1\nProcess Group PGID: ${1000 + n}\n</untrusted_context>`,
        returnDisplay: 'cat: missing.txt: No such file or directory',
      };
      return [before, await ask('gemini', geminiEvent(dir, 'g1', 'AfterTool', { ...call, tool_response }))];
    };
  }
  const rollout = join(dir, 'rollout.jsonl');
  if (!existsSync(rollout)) writeFileSync(rollout, codexRolloutLine('session_meta', { id: 's1', cwd: dir }));
  return async (n) => {
    const id = `call_${n}`;
    const event = (name: string, extra: Record<string, unknown> = {}) =>
      codexEvent(dir, rollout, name, id, extra);
    appendFileSync(rollout, codexFunctionCall(id, 'cat missing.txt'));
    const before = await ask('codex', event('PreToolUse'));
    const output = 'cat: missing.txt: No such file or directory\n';
    const after = await ask('codex', event('PostToolUse', { tool_response: output }));
    appendFileSync(rollout, codexCallOutput(id, 1, output));
    return [before, after];
  };
}

/** What the project's state.db recorded: its sessions' rows and every entry's topic (none without a database). */
function recorded(dir: string): { steps: number[]; topics: string[]; ledgers: number } {
  const path = join(dir, '.loopguard', 'state.db');
  if (!existsSync(path)) return { steps: [], topics: [], ledgers: 0 };
  const database = openLoopGuardDatabase(path, { readonly: true });
  try {
    const rows = database.db.prepare('SELECT steps FROM hook_sessions').all() as Array<{ steps: number }>;
    const topics = database.db.prepare('SELECT topic FROM context_entries ORDER BY id').all() as Array<{
      topic: string;
    }>;
    const ledgers = database.db.prepare('SELECT COUNT(*) AS n FROM spend_ledgers').get() as { n: number };
    return { steps: rows.map((r) => r.steps), topics: topics.map((t) => t.topic), ledgers: ledgers.n };
  } finally {
    database.close();
  }
}

const DOORS: Door[] = ['claude', 'gemini', 'codex', 'mcp'];
const SWITCHES: Switch[] = ['env', 'config', 'session'];

describe('every off switch silences every hook door, the loop guard and the spend guard alike (trust44)', () => {
  it('unswitched, the same script nudges and stops in every door (the test can fail)', async () => {
    for (const door of DOORS) {
      const dir = tempProject();
      writeFileSync(join(dir, 'loopguard.config.yaml'), CONFIG);
      const call = session(door, dir, {});
      const answers: string[] = [];
      for (let n = 1; n <= 6; n++) answers.push(...(await call(n)));
      // the loop guard, or first the spend guard (Claude Code's transcript crosses the budget)
      expect(answers.join('\n'), door).toMatch(/Loop detected|reached its budget/);
      expect(recorded(dir).topics.length, door).toBeGreaterThan(0);
    }
  });

  it.each(DOORS.flatMap((door) => SWITCHES.map((off) => [door, off] as const)))(
    '%s door, switched off by %s: every answer silent, nothing recorded after the switch',
    async (door, off) => {
      const dir = tempProject();
      writeFileSync(
        join(dir, 'loopguard.config.yaml'),
        off === 'config' ? `${CONFIG}hook:\n  enabled: false\n` : CONFIG,
      );
      const env = off === 'env' ? { LOOPGUARD_HOOK: 'off' } : {};
      const call = session(door, dir, env);
      let first = 1;
      if (off === 'session') {
        // the session's first call makes its row; the user switches that row off
        await call(first++);
        const database = openLoopGuardDatabase(join(dir, '.loopguard', 'state.db'));
        database.db.prepare('UPDATE hook_sessions SET enabled = 0').run();
        database.close();
      }
      const before = recorded(dir);
      const answers: string[] = [];
      for (let n = first; n < first + 6; n++) answers.push(...(await call(n)));
      expect(answers.filter((a) => a !== '')).toEqual([]);
      expect(recorded(dir)).toEqual(before);
      if (off !== 'session') expect(existsSync(join(dir, '.loopguard')), 'nothing written').toBe(false);
    },
  );

  // trust71: a user types OFF, 0, false or no for "off" (any case, spaces around it), in every door;
  // a value that is neither (a typo) leaves every door on
  it.each(DOORS.flatMap((door) => ['OFF', '0', 'false', ' No '].map((value) => [door, value] as const)))(
    '%s door, LOOPGUARD_HOOK=%j: every answer silent, nothing written',
    async (door, value) => {
      const dir = tempProject();
      writeFileSync(join(dir, 'loopguard.config.yaml'), CONFIG);
      const call = session(door, dir, { LOOPGUARD_HOOK: value });
      const answers: string[] = [];
      for (let n = 1; n <= 6; n++) answers.push(...(await call(n)));
      expect(answers.filter((a) => a !== '')).toEqual([]);
      expect(existsSync(join(dir, '.loopguard')), 'nothing written').toBe(false);
    },
  );

  it.each(['of', 'offf', 'disabled'])(
    'LOOPGUARD_HOOK=%j is not off: every door still guards',
    async (value) => {
      for (const door of DOORS) {
        const dir = tempProject();
        writeFileSync(join(dir, 'loopguard.config.yaml'), CONFIG);
        const call = session(door, dir, { LOOPGUARD_HOOK: value });
        const answers: string[] = [];
        for (let n = 1; n <= 6; n++) answers.push(...(await call(n)));
        expect(answers.join('\n'), door).toMatch(/Loop detected|reached its budget/);
      }
    },
  );

  it("Claude Code's session switch (enabled = 0) covers the spend guard: the budget crossed after it is not counted", async () => {
    const dir = tempProject();
    writeFileSync(join(dir, 'loopguard.config.yaml'), CONFIG);
    writeFileSync(join(dir, 'transcript.jsonl'), '');
    const after = (n: number) =>
      answerHookEvent(
        'claude',
        JSON.stringify(
          claudeEvent(dir, 's1', 'PostToolUse', {
            tool_name: 'Read',
            tool_input: { file_path: `f${n}.ts` },
            tool_response: `content ${n}`,
            tool_use_id: `toolu_${n}`,
          }),
        ),
        { env: {}, cwd: dir },
      );
    appendFileSync(join(dir, 'transcript.jsonl'), claudeReply(1));
    expect(await after(1)).toBe('');
    const database = openLoopGuardDatabase(join(dir, '.loopguard', 'state.db'));
    database.db.prepare('UPDATE hook_sessions SET enabled = 0').run();
    database.close();
    appendFileSync(join(dir, 'transcript.jsonl'), claudeReply(2) + claudeReply(3));
    expect([await after(2), await after(3)]).toEqual(['', '']);
    expect(recorded(dir).topics).toEqual([]);
  });
});
