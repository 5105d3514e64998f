import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { expect } from 'vitest';
import { codexExecArgs, ensureCodex, ensureGeminiCli } from './agentClis.js';
import { filesUnder } from './agentTranscripts.js';
import { ensureClaudeCode, runClaudePrint } from './claudeCode.js';
import { trustCodexHooks } from './codexHookTrust.js';
import { type ScriptedTurn, startFakeAnthropicApi } from './fakeAnthropicApi.js';
import {
  execCommand,
  assistantText as responsesText,
  startFakeGeminiApi,
  startFakeResponsesApi,
} from './fakeModelApis.js';
import { runGeminiPrint } from './geminiCli.js';
import { loopguard, tempRepo } from './runHelpers.js';

/**
 * One real session of a pinned agent CLI (offline, against a scripted model API), recorded once for
 * every door at the same time: the hook events it sent (to a recorder installed where
 * `loopguard init` puts loopguard's hook), its live output (`stream-json`, `exec --json`) and the
 * transcript it left (what `scan` reads).
 */
export interface RecordedSession {
  /** The hook events, one JSON text each, in the order the CLI sent them. */
  hookEvents: string[] | null;
  /** The CLI's live output lines (what `run --agent-stream` reads). */
  stream: string[];
  /** The session's transcript file. */
  transcript: string;
}

/** A scripted shell session: the shell command of each model turn; `undefined` ends with a text. */
export type ShellScript = (turn: number) => { command: string; description: string } | undefined;

/**
 * A scripted Claude Code session with any of its tools (`Write`, `Edit`, `Read`, `Bash`): the call
 * of each model turn, given the project's folder (the file tools take absolute paths); `undefined`
 * ends with a text.
 */
export type ClaudeToolScript = (
  turn: number,
  dir: string,
) => { tool: string; input: Record<string, unknown> } | undefined;

const FINAL_TEXT = 'I stop here.';

/** A recorder that appends each event (its stdin) as one line to `file` and says nothing. */
function recorderCommand(file: string): string {
  const script = join(mkdtempSync(join(tmpdir(), 'loopguard-recorder-')), 'record.mjs');
  writeFileSync(
    script,
    `import { appendFileSync, readFileSync } from 'node:fs';\n` +
      `appendFileSync(${JSON.stringify(file)}, JSON.stringify(JSON.parse(readFileSync(0, 'utf8'))) + '\\n');\n`,
  );
  return `${JSON.stringify(process.execPath)} ${JSON.stringify(script)}`;
}

/**
 * Installs loopguard's hooks with `init`, then points them at a recorder: the CLI runs them as
 * loopguard's. Codex's go in the user's `$CODEX_HOME/hooks.json` (`codexHome`).
 */
async function installRecorder(
  dir: string,
  agent: 'claude' | 'gemini' | 'codex',
  events: string,
  codexHome = '',
): Promise<void> {
  // command hooks: the recorder stands in for the hook command (the events are then replayed through each door)
  const init = await loopguard(
    dir,
    [
      'init',
      agent,
      agent === 'codex' ? '--user' : '--project',
      ...(agent === 'claude' ? ['--command-hooks'] : []),
    ],
    agent === 'codex' ? { CODEX_HOME: codexHome } : {},
  );
  expect(init.code, init.stderr).toBe(0);
  const file =
    agent === 'codex'
      ? join(codexHome, 'hooks.json')
      : join(dir, agent === 'claude' ? '.claude' : '.gemini', 'settings.json');
  const command = recorderCommand(events);
  const settings = JSON.parse(readFileSync(file, 'utf8'), (key, value) =>
    key === 'command' && typeof value === 'string' && value.includes(' hook ') ? command : value,
  );
  writeFileSync(file, JSON.stringify(settings, null, 2));
}

const linesOf = (text: string) => text.split('\n').filter((line) => line.startsWith('{'));
const readLines = (file: string) => {
  try {
    return linesOf(readFileSync(file, 'utf8'));
  } catch {
    return [];
  }
};
const home = (prefix: string) => mkdtempSync(join(tmpdir(), prefix));
const last = (files: string[]) => {
  expect(files.length).toBeGreaterThan(0);
  return files[files.length - 1] as string;
};

/** Claude Code 2.1.330 with `Bash` calls (`{ command, description }`). */
export function recordClaude(script: ShellScript): Promise<RecordedSession> {
  return recordClaudeTools((turn) => {
    const input = script(turn);
    return input === undefined ? undefined : { tool: 'Bash', input };
  });
}

/** Claude Code 2.1.330 with the calls of `script` (any of its tools). */
export async function recordClaudeTools(script: ClaudeToolScript): Promise<RecordedSession> {
  const claude = await ensureClaudeCode();
  const { dir } = tempRepo('');
  const userHome = home('loopguard-xdoor-claude-');
  const events = join(userHome, 'events.jsonl');
  await installRecorder(dir, 'claude', events);
  const api = await startFakeAnthropicApi((turn): ScriptedTurn => {
    const call = script(turn, dir);
    return call === undefined ? { text: FINAL_TEXT } : call;
  });
  try {
    const { result } = await runClaudePrint(claude, dir, api.url, userHome, { timeout: 300_000 });
    return {
      hookEvents: readLines(events),
      stream: linesOf(String(result.stdout)),
      transcript: last(filesUnder(join(userHome, '.claude', 'projects'), '.jsonl')),
    };
  } finally {
    await api.close();
  }
}

/** Gemini CLI 0.61.0 with `run_shell_command` calls (`{ command, description }`). */
export async function recordGemini(script: ShellScript): Promise<RecordedSession> {
  const gemini = await ensureGeminiCli();
  const { dir } = tempRepo('');
  const userHome = home('loopguard-xdoor-gemini-');
  const events = join(userHome, 'events.jsonl');
  await installRecorder(dir, 'gemini', events);
  const api = await startFakeGeminiApi((turn) => {
    const call = script(turn);
    return [
      call === undefined ? { text: FINAL_TEXT } : { functionCall: { name: 'run_shell_command', args: call } },
    ];
  });
  try {
    const { result } = await runGeminiPrint(gemini, dir, api.url, userHome, {
      model: 'gemini-scripted',
      timeout: 300_000,
    });
    return {
      hookEvents: readLines(events),
      stream: linesOf(String(result.stdout)),
      transcript: last(filesUnder(join(userHome, '.gemini', 'tmp'), '.jsonl')),
    };
  } finally {
    await api.close();
  }
}

/**
 * Codex 0.169.0 with `exec_command` calls (`{ cmd }`), its hooks installed by `init codex --user`
 * and trusted through Codex's own review API (what its /hooks screen writes).
 */
export async function recordCodex(script: ShellScript): Promise<RecordedSession> {
  const codex = await ensureCodex();
  const api = await startFakeResponsesApi((turn) => {
    const call = script(turn);
    return [call === undefined ? responsesText(FINAL_TEXT) : execCommand(call.command)];
  });
  const codexHome = home('loopguard-xdoor-codex-');
  const env = { HOME: home('loopguard-xdoor-codex-user-'), CODEX_HOME: codexHome };
  const { dir } = tempRepo('');
  const events = join(env.HOME, 'events.jsonl');
  await installRecorder(dir, 'codex', events, codexHome);
  const trusted = await trustCodexHooks(
    codex,
    env,
    dir,
    (hook) => hook.command?.includes('record.mjs') === true,
  );
  expect(trusted.filter((hook) => hook.command?.includes('record.mjs'))).toHaveLength(4);
  try {
    const result = await execa(codex, codexExecArgs(api.url, 'Fix the bug.'), {
      cwd: dir,
      reject: false,
      stdin: 'ignore',
      timeout: 300_000,
      env: { ...env, SCRIPTED_API_KEY: 'test' },
    });
    return {
      hookEvents: readLines(events),
      stream: linesOf(String(result.stdout)),
      transcript: last(filesUnder(join(codexHome, 'sessions'), '.jsonl')),
    };
  } finally {
    await api.close();
  }
}
