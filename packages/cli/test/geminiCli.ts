import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
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
