import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openLoopGuardDatabase } from '@loopguard/sqlite';
import { describe, expect, it } from 'vitest';
import { answerHookEvent } from '../src/hook/runHook.js';
import { hookLog, sessionVerdicts } from './hookHelpers.js';
import { loopguard } from './runHelpers.js';

/** A project guarded by default (an empty configuration). */
function project(): string {
  const dir = mkdtempSync(join(tmpdir(), 'loopguard-session-end-'));
  writeFileSync(join(dir, 'loopguard.config.yaml'), '');
  return dir;
}

/** Each CLI's events of one session `s1` in `dir`: a tool call that ran, and the session's end. */
const AGENTS = {
  claude: (dir: string) => ({
    env: { CLAUDE_PROJECT_DIR: dir },
    call: {
      hook_event_name: 'PostToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'echo one > one.txt' },
      tool_response: { stdout: '', stderr: '', interrupted: false },
      tool_use_id: 'toolu_1',
    },
    end: { hook_event_name: 'SessionEnd', reason: 'other' },
  }),
  gemini: (dir: string) => ({
    env: { GEMINI_PROJECT_DIR: dir },
    call: {
      hook_event_name: 'AfterTool',
      tool_name: 'run_shell_command',
      tool_input: { command: 'echo one > one.txt' },
      tool_response: { llmContent: 'Output: (empty)', returnDisplay: '' },
    },
    end: { hook_event_name: 'SessionEnd', reason: 'exit' },
  }),
  codex: (_dir: string) => ({
    env: {},
    call: {
      hook_event_name: 'PostToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'echo one > one.txt' },
      tool_response: '',
      tool_use_id: 'call_1',
    },
    end: { hook_event_name: 'SessionEnd', reason: 'other' },
  }),
} as const;

type Agent = keyof typeof AGENTS;

function answer(agent: Agent, dir: string, fields: Record<string, unknown>, session = 's1'): Promise<string> {
  const { env } = AGENTS[agent](dir);
  const event = { session_id: session, cwd: dir, ...fields };
  return answerHookEvent(agent, JSON.stringify(event), { env, cwd: dir });
}

describe.each(Object.keys(AGENTS) as Agent[])(
  '%s: the agent says the session ended (SessionEnd)',
  (agent) => {
    it('every door says at once that it is no longer running; a later event (resumed) runs it again', async () => {
      const dir = project();
      const { call, end } = AGENTS[agent](dir);
      expect(await answer(agent, dir, call)).toBe('');
      expect(sessionVerdicts(dir)).toEqual([[agent, 'running']]);
      expect(await answer(agent, dir, end)).toBe('');
      expect(sessionVerdicts(dir)).toEqual([[agent, 'clean']]);
      const status = await loopguard(dir, ['status', '--db', join(dir, '.loopguard', 'state.db')]);
      expect(status.stdout).not.toContain('running');
      expect(status.stdout).toContain('no loop found');
      await new Promise((resolve) => setTimeout(resolve, 5)); // a later event, a later millisecond
      expect(await answer(agent, dir, { ...call, tool_use_id: 'toolu_2' })).toBe('');
      expect(sessionVerdicts(dir)).toEqual([[agent, 'running']]);
      expect(hookLog(dir)).toEqual([]);
    });

    it('writes nothing for a session it never saw, nor for another session', async () => {
      const dir = project();
      const { call, end } = AGENTS[agent](dir);
      expect(await answer(agent, dir, call)).toBe('');
      expect(await answer(agent, dir, end, 's2')).toBe('');
      expect(sessionVerdicts(dir)).toEqual([[agent, 'running']]);
      const database = openLoopGuardDatabase(join(dir, '.loopguard', 'state.db'), { readonly: true });
      try {
        expect(database.db.prepare('SELECT count(*) AS n FROM context_entries').get()).toEqual({ n: 0 });
      } finally {
        database.close();
      }
      expect(hookLog(dir)).toEqual([]);
    });
  },
);
