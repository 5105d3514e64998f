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
