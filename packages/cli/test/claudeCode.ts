import { execa } from 'execa';
import { ensureCachedTool } from './npmToolCache.js';

/** The Claude Code release the offline test runs (pinned). */
export const CLAUDE_CODE_VERSION = '2.1.330';

/**
 * The Claude Code binary, installed on demand from the npm registry into
 * `~/.cache/loopguard-test/claude-code-<version>` (its native binary is ~380 MB).
 */
export function ensureClaudeCode(): Promise<string> {
  return ensureCachedTool(
    '@anthropic-ai/claude-code',
    CLAUDE_CODE_VERSION,
    `claude-code-${CLAUDE_CODE_VERSION}`,
    [
      `@anthropic-ai/claude-code-${process.platform}-${process.arch}/claude`,
      '@anthropic-ai/claude-code/bin/claude.exe',
    ],
  );
}

/** The environment of an offline Claude Code run against the scripted Messages API at `apiUrl`, in the home `home`. */
export function claudeEnv(apiUrl: string, home: string): Record<string, string> {
  return {
    ANTHROPIC_BASE_URL: apiUrl,
    ANTHROPIC_API_KEY: 'test',
    DISABLE_TELEMETRY: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    HOME: home,
    ...(process.getuid?.() === 0 ? { IS_SANDBOX: '1' } : {}),
  };
}

/**
 * One `claude -p 'Fix the bug.'` in `dir` with stream-json output, offline against the scripted API at
 * `apiUrl` and in the home `home` (loopguard's hooks on unless `env` switches them off), as the e2e
 * tests run it: the process's result, its stream-json lines and its `result` line.
 * @param extraArgs - more flags for `claude` (`--model <name>`).
 */
export async function runClaudePrint(
  claude: string,
  dir: string,
  apiUrl: string,
  home: string,
  options: { env?: Record<string, string>; extraArgs?: string[]; timeout?: number } = {},
) {
  const result = await execa(
    claude,
    [
      '-p',
      'Fix the bug.',
      ...(options.extraArgs ?? []),
      '--output-format',
      'stream-json',
      '--verbose',
      '--dangerously-skip-permissions',
    ],
    {
      cwd: dir,
      reject: false,
      stdin: 'ignore',
      timeout: options.timeout ?? 240_000,
      env: { ...claudeEnv(apiUrl, home), LOOPGUARD_HOOK: '', ...options.env },
    },
  );
  const lines = String(result.stdout)
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { result, lines, resultLine: lines.find((line) => line.type === 'result') ?? {} };
}
