import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import {
  CODEX_VERSION,
  codexExecArgs,
  ensureCodex,
  ensureGeminiCli,
  GEMINI_CLI_VERSION,
} from './agentClis.js';
import { CLAUDE_CODE_VERSION, claudeEnv, ensureClaudeCode } from './claudeCode.js';
import { type ScriptedTurn, startFakeAnthropicApi } from './fakeAnthropicApi.js';
import {
  assistantText,
  execCommand,
  type GeminiReply,
  type ResponsesReply,
  startFakeGeminiApi,
  startFakeResponsesApi,
} from './fakeModelApis.js';
import { tempRepo } from './runHelpers.js';

/**
 * Real agent CLIs (pinned, offline against the scripted model APIs) writing their own session
 * transcripts in a fresh home: what `loopguard scan` reads. Each function runs one session and
 * returns the transcript files the CLI left in its default place (and the home it used).
 */

/** The transcript fixtures kept in the repository (written by {@link writeFixture}). */
export const SCAN_FIXTURES = new URL('./fixtures/scan/', import.meta.url);

/** A session's scripted model: `turn` counts the model's replies so far (0-based). */
export type Script = (turn: number) => { tool: string; args: Record<string, unknown> } | { text: string };

/** The transcript files under `dir` whose name ends with `suffix`, full paths, sorted. */
export function filesUnder(dir: string, suffix: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith(suffix))
    .map((file) => join(dir, file))
    .sort();
}

const home = (prefix: string) => mkdtempSync(join(tmpdir(), prefix));

/** Claude Code 2.1.330: `claude -p` in a fresh repository; the transcript is under `~/.claude/projects`. */
export async function claudeSession(script: Script): Promise<{ home: string; files: string[] }> {
  const claude = await ensureClaudeCode();
  const api = await startFakeAnthropicApi((turn): ScriptedTurn => {
    const reply = script(turn);
    return 'tool' in reply ? { tool: reply.tool, input: reply.args } : reply;
  });
  const dir = home('loopguard-scan-claude-');
  const { dir: cwd } = tempRepo('');
  try {
    await execa(claude, ['-p', 'Fix the bug.', '--output-format', 'json', '--dangerously-skip-permissions'], {
      cwd,
      reject: false,
      stdin: 'ignore',
      timeout: 300_000,
      env: claudeEnv(api.url, dir),
    });
  } finally {
    await api.close();
  }
  return { home: dir, files: filesUnder(join(dir, '.claude', 'projects'), '.jsonl') };
}

/** Codex 0.169.0: `codex exec` in a fresh repository; the rollout is under `$CODEX_HOME/sessions`. */
export async function codexSession(script: Script): Promise<{ home: string; files: string[] }> {
  const codex = await ensureCodex();
  const api = await startFakeResponsesApi((call): ResponsesReply => {
    const reply = script(call);
    return ['tool' in reply ? execCommand(String(reply.args.command)) : assistantText(reply.text)];
  });
  const codexHome = home('loopguard-scan-codex-');
  const { dir: cwd } = tempRepo('');
  try {
    await execa(codex, codexExecArgs(api.url, 'Fix the bug.'), {
      cwd,
      reject: false,
      stdin: 'ignore',
      timeout: 300_000,
      env: { HOME: home('loopguard-scan-codex-user-'), CODEX_HOME: codexHome, SCRIPTED_API_KEY: 'test' },
    });
  } finally {
    await api.close();
  }
  return { home: codexHome, files: filesUnder(join(codexHome, 'sessions'), '.jsonl') };
}

/** Gemini CLI 0.61.0: `gemini -p` in a fresh repository; the chat is under `~/.gemini/tmp/<project>/chats`. */
export async function geminiSession(script: Script): Promise<{ home: string; files: string[] }> {
  const gemini = await ensureGeminiCli();
  const api = await startFakeGeminiApi((call): GeminiReply => {
    const reply = script(call);
    return [
      'tool' in reply ? { functionCall: { name: reply.tool, args: reply.args } } : { text: reply.text },
    ];
  });
  const dir = home('loopguard-scan-gemini-');
  mkdirSync(join(dir, '.gemini'));
  writeFileSync(
    join(dir, '.gemini', 'settings.json'),
    JSON.stringify({
      security: { auth: { selectedType: 'gemini-api-key' } },
      privacy: { usageStatisticsEnabled: false },
    }),
  );
  const { dir: cwd } = tempRepo('');
  try {
    await execa(gemini, ['-p', 'Fix the bug.', '--yolo', '--model', 'gemini-scripted'], {
      cwd,
      reject: false,
      stdin: 'ignore',
      timeout: 300_000,
      env: {
        HOME: dir,
        GEMINI_API_KEY: 'test',
        GOOGLE_GEMINI_BASE_URL: api.url,
        GEMINI_CLI_TRUST_WORKSPACE: 'true',
      },
    });
  } finally {
    await api.close();
  }
  return { home: dir, files: filesUnder(join(dir, '.gemini', 'tmp'), '.jsonl') };
}

/** The fixture file name of one CLI's session: `<cli>-<version>-<name>.jsonl`. */
export function fixtureName(agent: 'claude' | 'codex' | 'gemini', name: string): string {
  const version = { claude: CLAUDE_CODE_VERSION, codex: CODEX_VERSION, gemini: GEMINI_CLI_VERSION }[agent];
  return `${agent}-${version}-${name}.jsonl`;
}

/** Copies a transcript into the repository's fixtures (run with `LOOPGUARD_WRITE_FIXTURES=1`). */
export function writeFixture(file: string, name: string): void {
  mkdirSync(SCAN_FIXTURES, { recursive: true });
  copyFileSync(file, new URL(name, SCAN_FIXTURES));
}
