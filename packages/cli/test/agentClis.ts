import { ensureCachedTool } from './npmToolCache.js';

/** The OpenAI Codex CLI release the offline tests run (pinned). */
export const CODEX_VERSION = '0.169.0';
/** The Gemini CLI release the offline tests run (pinned; the hook tests use the same one). */
export const GEMINI_CLI_VERSION = '0.61.0';

/** The `codex` command, installed on demand into `~/.cache/loopguard-test/codex-<version>` (~400 MB). */
export function ensureCodex(): Promise<string> {
  return ensureCachedTool('@openai/codex', CODEX_VERSION, `codex-${CODEX_VERSION}`, ['.bin/codex']);
}

/** The `gemini` command, installed on demand into `~/.cache/loopguard-test/gemini-cli-<version>`. */
export function ensureGeminiCli(): Promise<string> {
  return ensureCachedTool('@google/gemini-cli', GEMINI_CLI_VERSION, `gemini-cli-${GEMINI_CLI_VERSION}`, [
    '.bin/gemini',
  ]);
}

/**
 * The arguments of `codex exec --json` against a scripted Responses API at `apiUrl` (its key read
 * from `SCRIPTED_API_KEY`), ending with `prompt` (`-`: read from stdin). `model`: the name the
 * rollout records (a priced one, `gpt-5`, for the dollars of a budget).
 */
export function codexExecArgs(apiUrl: string, prompt: string, model = 'gpt-scripted'): string[] {
  const provider = `{ name = "scripted", base_url = "${apiUrl}/v1", wire_api = "responses", env_key = "SCRIPTED_API_KEY" }`;
  return [
    'exec',
    '--json',
    '--skip-git-repo-check',
    '--sandbox',
    'danger-full-access',
    '-c',
    'model_provider="scripted"',
    '-c',
    `model_providers.scripted=${provider}`,
    '--model',
    model,
    prompt,
  ];
}
