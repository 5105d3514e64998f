import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';

/** The Gemini CLI release the offline tests run (pinned; see /work/coord/PINS.md). */
export const GEMINI_CLI_VERSION = '0.61.0';

/**
 * The Gemini CLI entry script, installed on demand from the npm registry into
 * `~/.cache/loopguard-test/gemini-cli-<version>` (like Claude Code: not a workspace dependency).
 * Throws with npm's output when the install fails.
 */
export async function ensureGeminiCli(): Promise<string> {
  const dir = join(homedir(), '.cache', 'loopguard-test', `gemini-cli-${GEMINI_CLI_VERSION}`);
  const entry = join(dir, 'node_modules', '@google', 'gemini-cli', 'bundle', 'gemini.js');
  if (!existsSync(entry)) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), '{ "name": "loopguard-test-gemini-cli", "private": true }\n');
    const install = await execa(
      'npm',
      ['install', '--no-audit', '--no-fund', '--loglevel=error', `@google/gemini-cli@${GEMINI_CLI_VERSION}`],
      { cwd: dir, reject: false, all: true },
    );
    if (install.exitCode !== 0) {
      throw new Error(
        `npm install @google/gemini-cli@${GEMINI_CLI_VERSION} into ${dir} failed (exit ${install.exitCode}):\n${install.all}`,
      );
    }
  }
  if (!existsSync(entry)) throw new Error(`Gemini CLI installed into ${dir} but ${entry} is missing`);
  const version = await execa(process.execPath, [entry, '--version'], { reject: false, all: true });
  if (version.exitCode !== 0 || !String(version.all).includes(GEMINI_CLI_VERSION)) {
    throw new Error(`${entry} --version failed (exit ${version.exitCode}): ${version.all}`);
  }
  return entry;
}

/** The environment of a Gemini CLI run offline against the scripted API at `apiUrl`, in `home`. */
export function geminiEnv(apiUrl: string, home: string): Record<string, string> {
  return {
    HOME: home,
    GEMINI_API_KEY: 'test',
    GOOGLE_GEMINI_BASE_URL: apiUrl,
    GEMINI_CLI_TRUST_WORKSPACE: 'true',
    LOOPGUARD_HOOK: '',
    NO_COLOR: '1',
  };
}

/**
 * One `gemini -p 'Fix the bug.'` in `dir` with stream-json output and `--yolo`, offline against the
 * scripted API at `apiUrl`, in the home `home` (its `.gemini/settings.json` written over what it
 * holds: API-key auth, the hooks system on, no usage statistics), loopguard's hooks on: the process's result and its
 * stream-json events, as the e2e tests run it.
 * @param options.model - `--model <name>` (default: none, Gemini CLI's own).
 * @param options.extraArgs - more arguments (`--session-id <id>`).
 * @param options.env - variables over `geminiEnv`'s (default: none).
 */
export async function runGeminiPrint(
  gemini: string,
  dir: string,
  apiUrl: string,
  home: string,
  options: { model?: string; timeout?: number; extraArgs?: string[]; env?: Record<string, string> } = {},
) {
  mkdirSync(join(home, '.gemini'), { recursive: true });
  const settings = join(home, '.gemini', 'settings.json');
  // what is there already is kept: the hooks of `loopguard init gemini --user`
  const user = existsSync(settings) ? (JSON.parse(readFileSync(settings, 'utf8')) as object) : {};
  writeFileSync(
    settings,
    JSON.stringify({
      ...user,
      security: { ...(user as { security?: object }).security, auth: { selectedType: 'gemini-api-key' } },
      privacy: { usageStatisticsEnabled: false },
      hooksConfig: { enabled: true },
    }),
  );
  const result = await execa(
    process.execPath,
    [
      gemini,
      '-p',
      'Fix the bug.',
      ...(options.model === undefined ? [] : ['--model', options.model]),
      ...(options.extraArgs ?? []),
      '--output-format',
      'stream-json',
      '--yolo',
    ],
    {
      cwd: dir,
      reject: false,
      stdin: 'ignore',
      timeout: options.timeout ?? 240_000,
      env: { ...geminiEnv(apiUrl, home), ...options.env },
    },
  );
  const events = String(result.stdout)
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { result, events };
}
