import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../src/terminal/exitCodes.js';
import { ensureClaudeCode } from './claudeCode.js';
import { type ScriptedTurn, startFakeAnthropicApi } from './fakeAnthropicApi.js';
import { artifact, loopguard, stored, tempRepo } from './runHelpers.js';

// A real Claude Code, fully offline against a scripted Messages API on 127.0.0.1. The install
// (first run only) downloads ~380 MB and the machine has 2 cores: generous timeouts.
let claude = '';
beforeAll(async () => {
  claude = await ensureClaudeCode();
}, 900_000);

async function guardClaude(script: (turn: number) => ScriptedTurn, args: string[]) {
  const api = await startFakeAnthropicApi(script);
  try {
    const { dir } = tempRepo('');
    const env: Record<string, string> = {
      ANTHROPIC_BASE_URL: api.url,
      ANTHROPIC_API_KEY: 'test',
      DISABLE_TELEMETRY: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_AUTOUPDATER: '1',
      HOME: mkdtempSync(join(tmpdir(), 'loopguard-claude-home-')),
      ...(process.getuid?.() === 0 ? { IS_SANDBOX: '1' } : {}),
    };
    const result = await loopguard(
      dir,
      [
        'run',
        '--prompt-file',
        'PROMPT.md',
        '--agent-stream',
        'claude',
        '--iteration-timeout',
        '3m',
        ...args,
        '--',
        claude,
        '-p',
        '--output-format',
        'stream-json',
        '--verbose',
        '--dangerously-skip-permissions',
      ],
      env,
    );
    return { dir, result, requests: api.requests, home: env.HOME as string };
  } finally {
    await api.close();
  }
}

describe('loopguard run around a real Claude Code (offline)', () => {
  it('stops an iteration mid-run when the model runs the same failing command again and again, and counts the stops for the breaker', async () => {
    const { dir, result, home } = await guardClaude(
      () => ({ tool: 'Bash', input: { command: 'cat missing.txt', description: 'Read the file' } }),
      ['--stagnation-threshold', '2', '--on-stagnation', 'abort'],
    );
    expect(result.code, result.stderr).toBe(EXIT_CODES.aborted);
    const { run, iterations } = stored(dir);
    expect(iterations.map((i) => i.progress)).toEqual(['stopped', 'stopped']);
    expect(run.reason).toContain('step_loop_stopped: stopped mid-run by the loop detector');
    const stop = artifact(dir, run.id, 1, 'step_loop.json') as {
      action: string;
      toolCall: number;
      loopType: string;
      evidence: unknown[];
    };
    expect(stop.action).toBe('stop');
    expect(JSON.stringify(stop.evidence)).toContain('cat missing.txt');
    // killed by loopguard (SIGTERM to its process group), not by the timeout; Claude Code exits 143 on SIGTERM
    const metrics = artifact(dir, run.id, 1, 'metrics.json') as {
      timedOut: boolean;
      signal: string | null;
      exitCode: number | null;
    };
    expect(metrics.timedOut).toBe(false);
    expect(metrics.signal === 'SIGTERM' || metrics.exitCode === 143).toBe(true);
    // sessions59: status says loopguard stopped the run at the stop's call; scan of Claude Code's own
    // transcripts and of the run's logs gives each stopped session the run's record, no "would have"
    const status = await loopguard(dir, ['status', '--session', run.id, '--json']);
    expect(status.code, status.stderr).toBe(EXIT_CODES.sessionStopped);
    const told = JSON.parse(status.stdout);
    expect(told).toMatchObject({ verdict: 'stopped', stop: { topic: 'loop_stop', call: stop.toolCall } });
    const scan = await loopguard(dir, ['scan', '--no-cache', '--json'], { HOME: home });
    const sessions = JSON.parse(scan.stdout).sessions as Array<{
      record?: { run?: string; summary: string };
      recordDiffers?: string;
    }>;
    expect(sessions).toHaveLength(2);
    for (const session of sessions) {
      expect(session.record).toMatchObject({ run: run.id, summary: told.summary });
      expect(session.recordDiffers).toBeUndefined();
    }
    const terminal = await loopguard(dir, ['scan', '--no-cache'], { HOME: home });
    expect(terminal.stdout).toContain('loopguard stopped 2 sessions in a loop');
    expect(terminal.stdout).not.toContain('would have stopped');
  }, 600_000);

  it('leaves a run that makes progress untouched: it completes with exit 0', async () => {
    const script = (turn: number): ScriptedTurn =>
      [
        { tool: 'Bash', input: { command: 'echo one > one.txt', description: 'Write one' } },
        { tool: 'Bash', input: { command: 'echo two > two.txt', description: 'Write two' } },
        { tool: 'Bash', input: { command: 'ls', description: 'List files' } },
      ][turn] ?? { text: 'Both files are written. <promise>COMPLETE</promise>' };
    const { dir, result } = await guardClaude(script, [
      '--evidence-command',
      'test -f one.txt && test -f two.txt',
    ]);
    expect(result.code, result.stderr).toBe(EXIT_CODES.ok);
    const { run, iterations } = stored(dir);
    expect(run).toMatchObject({ status: 'completed', iteration: 1 });
    expect(iterations.map((i) => i.progress)).toEqual(['progress']);
    const patch = readFileSync(
      join(dir, '.loopguard', 'runs', run.id, 'iterations', '1', 'changes.patch'),
      'utf8',
    );
    expect(patch).toContain('+one');
    expect(patch).toContain('+two');
    const metrics = artifact(dir, run.id, 1, 'metrics.json') as {
      costUsd: unknown;
      numTurns: unknown;
      tokens: unknown;
    };
    expect(metrics.numTurns).toBe(4);
    expect(typeof metrics.costUsd).toBe('number');
    expect(metrics.tokens).toMatchObject({ input: expect.any(Number), output: expect.any(Number) });
  }, 600_000);
});
