import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureClaudeCode } from '../packages/cli/test/claudeCode.js';
import { startFakeAnthropicApi } from '../packages/cli/test/fakeAnthropicApi.js';

/**
 * Runs the Claude Agent SDK example of docs/agents.md (marked `<!-- example:agents.test.ts -->`)
 * against the pinned Claude Code and a scripted Messages API on 127.0.0.1: the model reads the same
 * missing file again and again, and the example must print the stop. The other examples of the
 * page run in docs/examples.test.ts.
 */
const root = dirname(dirname(fileURLToPath(import.meta.url)));
const markdown = readFileSync(join(root, 'docs', 'agents.md'), 'utf8');
const marked =
  /<!-- example:agents\.test\.ts -->\n<!-- example-context\n([\s\S]*?)-->\n```ts\n([\s\S]*?)```/.exec(
    markdown,
  );

let claude = '';
const tmp = mkdtempSync(join(tmpdir(), 'loopguard-agents-doc-'));
beforeAll(async () => {
  claude = await ensureClaudeCode();
}, 900_000);
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('docs/agents.md', () => {
  it('the Claude Agent SDK example stops a looping Claude Code run', async () => {
    expect(marked).not.toBeNull();
    const [, context, code] = marked as RegExpExecArray;
    const modules = join(tmp, 'node_modules');
    mkdirSync(join(modules, '@loopguard'), { recursive: true });
    symlinkSync(join(root, 'packages', 'agents'), join(modules, '@loopguard', 'agents'), 'dir');
    symlinkSync(
      join(root, 'packages', 'agents', 'node_modules', '@anthropic-ai'),
      join(modules, '@anthropic-ai'),
      'dir',
    );
    writeFileSync(join(tmp, 'example.mjs'), `${context}\n${code}`);
    const api = await startFakeAnthropicApi(() => ({
      tool: 'Bash',
      input: { command: 'cat missing.txt', description: 'Read the file' },
    }));
    try {
      const sdkOptions = {
        cwd: mkdtempSync(join(tmpdir(), 'loopguard-agents-doc-cwd-')),
        pathToClaudeCodeExecutable: claude,
        permissionMode: 'bypassPermissions',
        allowDangerouslySkipPermissions: true,
        settingSources: [],
        env: {
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          ANTHROPIC_BASE_URL: api.url,
          ANTHROPIC_API_KEY: 'test',
          DISABLE_TELEMETRY: '1',
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
          DISABLE_AUTOUPDATER: '1',
          HOME: mkdtempSync(join(tmpdir(), 'loopguard-claude-home-')),
          ...(process.getuid?.() === 0 ? { IS_SANDBOX: '1' } : {}),
        },
      };
      const { stdout, stderr } = await promisify(execFile)(process.execPath, ['example.mjs'], {
        cwd: tmp,
        timeout: 300_000,
        env: { ...process.env, LOOPGUARD_EXAMPLE_SDK_OPTIONS: JSON.stringify(sdkOptions) },
      });
      expect(stderr).toBe('');
      expect(stdout).toBe('result: success\nstopped: same_error\n');
    } finally {
      await api.close();
    }
  }, 600_000);
});
