import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const bin = fileURLToPath(new URL('../dist/bin.js', import.meta.url));
const cwd = mkdtempSync(join(tmpdir(), 'loopguard-tty-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

/** `loopguard <args>` as a person types it at a prompt: util-linux's `script` gives it a terminal as stdin. */
function atPrompt(args: string, script = bin): { status: number | null; output: string } {
  const result = spawnSync('script', ['-qec', `'${process.execPath}' '${script}' ${args}`, '/dev/null'], {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, HOME: cwd, NO_COLOR: '1' },
    timeout: 60_000,
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}`.replaceAll('\r', '') };
}

describe('statusline and mcp typed at a prompt (polish65)', () => {
  it('statusline says what it reads and who runs it, in one line, exit 1: through bin.js and the bundle init installs', () => {
    const said = {
      status: 1,
      output:
        "loopguard: statusline reads a Claude Code session's JSON on stdin, as Claude Code's status line sends it after each reply (loopguard init claude installs it; docs/hooks.md): stdin is a terminal, so there is nothing to show\n",
    };
    expect(atPrompt('statusline')).toEqual(said);
    expect(atPrompt('', fileURLToPath(new URL('../dist/bundle/statusline.cjs', import.meta.url)))).toEqual(
      said,
    );
  });

  it('mcp says what it is and who starts it, in one line, exit 1', () => {
    expect(atPrompt('mcp')).toEqual({
      status: 1,
      output:
        "loopguard: mcp is loopguard's MCP server: it speaks JSON-RPC on stdin and stdout with Claude Code, which starts it for the hooks loopguard init claude installs (docs/hooks.md): stdin is a terminal, so it does not start\n",
    });
  });
});
