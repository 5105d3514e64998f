import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';

/** The Claude Code release the offline test runs (pinned). */
export const CLAUDE_CODE_VERSION = '2.1.330';

/**
 * The Claude Code binary, installed on demand from the npm registry into
 * `~/.cache/loopguard-test/claude-code-<version>` (not a workspace dependency: its native binary is
 * ~380 MB). Throws with npm's output when the install fails.
 */
export async function ensureClaudeCode(): Promise<string> {
  const dir = join(homedir(), '.cache', 'loopguard-test', `claude-code-${CLAUDE_CODE_VERSION}`);
  const modules = join(dir, 'node_modules', '@anthropic-ai');
  const candidates = [
    join(modules, `claude-code-${process.platform}-${process.arch}`, 'claude'),
    join(modules, 'claude-code', 'bin', 'claude.exe'),
  ];
  const found = () => candidates.find((path) => existsSync(path));
  if (found() === undefined) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), '{ "name": "loopguard-test-claude-code", "private": true }\n');
    const install = await execa(
      'npm',
      [
        'install',
        '--no-audit',
        '--no-fund',
        '--loglevel=error',
        `@anthropic-ai/claude-code@${CLAUDE_CODE_VERSION}`,
      ],
      {
        cwd: dir,
        reject: false,
        all: true,
      },
    );
    if (install.exitCode !== 0) {
      throw new Error(
        `npm install @anthropic-ai/claude-code@${CLAUDE_CODE_VERSION} into ${dir} failed (exit ${install.exitCode}):\n${install.all}`,
      );
    }
  }
  const binary = found();
  if (binary === undefined)
    throw new Error(`Claude Code installed into ${dir} but no binary found at ${candidates.join(' or ')}`);
  const version = await execa(binary, ['--version'], { reject: false, all: true });
  if (version.exitCode !== 0)
    throw new Error(`${binary} --version failed (exit ${version.exitCode}): ${version.all}`);
  return binary;
}
