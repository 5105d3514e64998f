import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../src/terminal/exitCodes.js';
import { codexExecArgs, ensureCodex, ensureGeminiCli } from './agentClis.js';
import {
  assistantText,
  execCommand,
  type FakeModelApi,
  type GeminiReply,
  type ResponsesReply,
  startFakeGeminiApi,
  startFakeResponsesApi,
} from './fakeModelApis.js';
import { artifact, loopguard, stored, tempRepo } from './runHelpers.js';

// The real Codex CLI and Gemini CLI (pinned, installed on demand into ~/.cache/loopguard-test),
// fully offline: each talks to a scripted model API on 127.0.0.1 through its own base-URL setting.
let codex = '';
let gemini = '';
beforeAll(async () => {
  [codex, gemini] = await Promise.all([ensureCodex(), ensureGeminiCli()]);
}, 900_000);

const home = (prefix: string) => mkdtempSync(join(tmpdir(), prefix));

function codexCommand(api: FakeModelApi): { env: Record<string, string>; command: string[] } {
  return {
    // A fresh HOME too: Codex runs commands in a login shell, which reads the user's shell profile.
    env: {
      HOME: home('loopguard-codex-user-'),
      CODEX_HOME: home('loopguard-codex-home-'),
      SCRIPTED_API_KEY: 'test',
    },
    command: [codex, ...codexExecArgs(api.url, '-')],
  };
}

function geminiCommand(api: FakeModelApi): { env: Record<string, string>; command: string[] } {
  const dir = home('loopguard-gemini-home-');
  mkdirSync(join(dir, '.gemini'));
  writeFileSync(
    join(dir, '.gemini', 'settings.json'),
    JSON.stringify({
      security: { auth: { selectedType: 'gemini-api-key' } },
      privacy: { usageStatisticsEnabled: false },
    }),
  );
  return {
    env: {
      HOME: dir,
      GEMINI_API_KEY: 'test',
      GOOGLE_GEMINI_BASE_URL: api.url,
      GEMINI_CLI_TRUST_WORKSPACE: 'true',
    },
    // A fixed model: the default `auto` asks a classifier first, whose scripted answer it rejects noisily.
    command: [gemini, '--output-format', 'stream-json', '--yolo', '--model', 'gemini-scripted'],
  };
}

async function guard(
  format: 'codex' | 'gemini',
  api: FakeModelApi,
  args: string[],
): Promise<{ dir: string; result: Awaited<ReturnType<typeof loopguard>> }> {
  try {
    const { dir } = tempRepo('');
    const { env, command } = format === 'codex' ? codexCommand(api) : geminiCommand(api);
    const result = await loopguard(
      dir,
      [
        'run',
        '--prompt-file',
        'PROMPT.md',
        '--agent-stream',
        format,
        '--iteration-timeout',
        '3m',
        ...args,
        '--',
        ...command,
      ],
      env,
    );
    return { dir, result };
  } finally {
    await api.close();
  }
}

/** Whether any request body of `api` after the first `from` ones mentions `text`. */
const mentions = (api: FakeModelApi, text: string, from = 0) =>
  api.bodies.slice(from).some((body) => JSON.stringify(body).includes(text));

describe('loopguard run --agent-stream codex around a real Codex CLI 0.169.0 (offline)', () => {
  it('stops an iteration mid-run when Codex runs the same failing command again and again; the nudge reaches the next prompt', async () => {
    const api = await startFakeResponsesApi((): ResponsesReply => [execCommand('cat missing.txt')]);
    const { dir, result } = await guard('codex', api, [
      '--stagnation-threshold',
      '2',
      '--on-stagnation',
      'abort',
    ]);
    expect(result.code, result.stderr).toBe(EXIT_CODES.aborted);
    const { run, iterations } = stored(dir);
    expect(iterations.map((i) => i.progress)).toEqual(['stopped', 'stopped']);
    const stop = artifact(dir, run.id, 1, 'step_loop.json') as {
      action: string;
      loopType: string;
      evidence: unknown[];
    };
    expect(stop).toMatchObject({ action: 'stop', loopType: 'same_error' });
    expect(JSON.stringify(stop.evidence)).toContain('cat missing.txt');
    expect(api.bodies.length).toBeGreaterThanOrEqual(4); // at least 2 failing commands per iteration, then killed
    expect(mentions(api, 'Loop detected (same_error)')).toBe(true); // iteration 2's prompt carries the nudge
  }, 600_000);

  it('leaves a Codex run that makes progress untouched: it completes with exit 0', async () => {
    const patch = (name: string) =>
      execCommand(
        `apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: ${name}\n+${name}\n*** End Patch\nEOF`,
      );
    const api = await startFakeResponsesApi(
      (call): ResponsesReply =>
        [[assistantText('Writing the files.'), patch('one.txt')], [patch('two.txt')], [execCommand('ls')]][
          call
        ] ?? [assistantText('Both files are written. <promise>COMPLETE</promise>')],
    );
    const { dir, result } = await guard('codex', api, [
      '--evidence-command',
      'test -f one.txt && test -f two.txt',
    ]);
    expect(result.code, result.stderr).toBe(EXIT_CODES.ok);
    const { run, iterations } = stored(dir);
    expect(run).toMatchObject({ status: 'completed', iteration: 1 });
    expect(iterations.map((i) => i.progress)).toEqual(['progress']);
    expect(mentions(api, 'Loop detected')).toBe(false);
  }, 600_000);
});

describe('loopguard run --agent-stream gemini around a real Gemini CLI 0.61.0 (offline)', () => {
  // Gemini CLI's own loop check ends a turn after 5 identical tool calls in a row, before loopguard's
  // stop (the 5th same failure); it does not see an alternation, which loopguard nudges and stops.
  it('stops an iteration mid-run when Gemini alternates between two failing steps', async () => {
    const api = await startFakeGeminiApi(
      (call): GeminiReply => [
        call % 2 === 0
          ? { functionCall: { name: 'read_file', args: { file_path: 'missing.txt' } } }
          : { functionCall: { name: 'run_shell_command', args: { command: 'ls missing.txt' } } },
      ],
    );
    const { dir, result } = await guard('gemini', api, [
      '--stagnation-threshold',
      '2',
      '--on-stagnation',
      'abort',
    ]);
    expect(result.code, result.stderr).toBe(EXIT_CODES.aborted);
    const { run, iterations } = stored(dir);
    expect(iterations.map((i) => i.progress)).toEqual(['stopped', 'stopped']);
    const stop = artifact(dir, run.id, 1, 'step_loop.json') as {
      action: string;
      loopType: string;
      evidence: unknown[];
    };
    expect(stop).toMatchObject({ action: 'stop', loopType: 'oscillation' });
    expect(JSON.stringify(stop.evidence)).toContain('ls missing.txt');
    expect(mentions(api, 'Loop detected (oscillation)')).toBe(true);
  }, 600_000);

  it('leaves a Gemini run that makes progress untouched: it completes with exit 0', async () => {
    const write = (name: string) => ({
      functionCall: { name: 'write_file', args: { file_path: name, content: `${name}\n` } },
    });
    const api = await startFakeGeminiApi(
      (call): GeminiReply =>
        [[{ text: 'Writing the files.' }, write('one.txt')], [write('two.txt')]][call] ?? [
          { text: 'Both files are written. <promise>COMPLETE</promise>' },
        ],
    );
    const { dir, result } = await guard('gemini', api, [
      '--evidence-command',
      'test -f one.txt && test -f two.txt',
    ]);
    expect(result.code, result.stderr).toBe(EXIT_CODES.ok);
    const { run, iterations } = stored(dir);
    expect(run).toMatchObject({ status: 'completed', iteration: 1 });
    expect(iterations.map((i) => i.progress)).toEqual(['progress']);
  }, 600_000);
});
