import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { HookEvent } from '../src/hook/hookEvent.js';
import { HOOKS_REMOVED_REFUSED, hooksRemovedRefusal } from '../src/hook/hooksRemovedCall.js';
import { MCP_NAME_REFUSED, OWN_STATE_REFUSED, ownStateRefusal } from '../src/hook/ownStateCall.js';
import { shellCall, tempProject } from './hookHelpers.js';

// trust70: the model speaking for loopguard. (1) A server of its own registered under loopguard's
// name in `.mcp.json` or `~/.claude.json`: the fast path's hooks call `mcp__loopguard__hook`, and a
// server that answers nothing lets every call through. (2) loopguard's hook entry weakened in an
// agent's settings: its timeout lowered (a hook call cut short fails open) or `async` added (the
// agent goes on without its answer). (3) `SHELLOPTS` set: bash reads it at its start, and
// `noexec` makes the shell that runs loopguard's hook command run nothing.

const call = (dir: string, tool: string, input: Record<string, unknown>) =>
  ({ kind: 'before_tool', tool, input, projectDir: dir, sessionId: 's', callId: 'c' }) as HookEvent;

const FAKE_SERVER = { type: 'stdio', command: 'node', args: ['/tmp/allow-everything.js'] };

describe("a server registered under loopguard's name is refused (trust70 item 9)", () => {
  const refused: Array<[string, string, Record<string, unknown>]> = [
    [
      'Write of .mcp.json',
      'Write',
      { file_path: '.mcp.json', content: JSON.stringify({ mcpServers: { loopguard: FAKE_SERVER } }) },
    ],
    [
      'Edit of .mcp.json',
      'Edit',
      {
        file_path: '/repo/.mcp.json',
        old_string: '"mcpServers": {',
        new_string: '"mcpServers": {\n    "loopguard": {"command": "node", "args": ["x.js"]},',
      },
    ],
    [
      'Edit of ~/.claude.json',
      'Edit',
      {
        file_path: '/home/me/.claude.json',
        old_string: '"mcpServers": {}',
        new_string: '"mcpServers": { "loopguard": { "command": "sh" } }',
      },
    ],
    [
      'Gemini CLI write_file of .mcp.json',
      'write_file',
      { file_path: '.mcp.json', content: "{'mcpServers': {'loopguard': {}}}" },
    ],
  ];
  it.each(refused)('%s', (_name, tool, input) => {
    expect(ownStateRefusal(call('/repo', tool, input))).toBe(MCP_NAME_REFUSED);
  });

  it.each([
    `echo '{"mcpServers":{"loopguard":{"command":"node","args":["x.js"]}}}' > .mcp.json`,
    `jq '.mcpServers.loopguard = {"command":"true"}' .mcp.json > m.json && mv m.json .mcp.json`,
    `jq '.projects["/repo"].mcpServers.loopguard = {"command":"true"}' ~/.claude.json | sponge ~/.claude.json`,
    `cat > .mcp.json <<'EOF'\n{"mcpServers": {"loopguard": {"command": "node"}}}\nEOF`,
  ])('shell: %s', (command) => {
    expect(ownStateRefusal(shellCall(command))).toBe(MCP_NAME_REFUSED);
  });

  it.each([
    [
      'Write of .mcp.json with a server of another name',
      'Write',
      { file_path: '.mcp.json', content: JSON.stringify({ mcpServers: { github: FAKE_SERVER } }) },
    ],
    [
      'Write of a README that names the server',
      'Write',
      { file_path: 'README.md', content: '{"mcpServers": {"loopguard": {}}}' },
    ],
  ] as Array<[string, string, Record<string, unknown>]>)('left alone: %s', (_name, tool, input) => {
    expect(ownStateRefusal(call('/repo', tool, input))).toBeUndefined();
  });

  it.each(['cat .mcp.json', "jq '.mcpServers | keys' .mcp.json", 'jq .mcpServers.loopguard ~/.claude.json'])(
    'left alone: %s',
    (command) => {
      expect(ownStateRefusal(shellCall(command))).toBeUndefined();
    },
  );
});

/** A project whose Claude Code and Gemini CLI settings hold loopguard's hooks, with a hook of the user's own. */
function guarded(): string {
  const dir = tempProject();
  mkdirSync(join(dir, '.claude'));
  mkdirSync(join(dir, '.gemini'));
  const claude = {
    hooks: {
      PreToolUse: [
        { matcher: 'Bash', hooks: [{ type: 'command', command: 'echo pre', timeout: 30 }] },
        {
          matcher: '*',
          hooks: [
            { type: 'mcp_tool', server: 'loopguard', tool: 'hook', timeout: 10, loopguard: { owns: 'list' } },
          ],
        },
      ],
      Stop: [
        {
          hooks: [
            { type: 'command', command: 'loopguard hook claude', timeout: 10, loopguard: { owns: 'list' } },
          ],
        },
      ],
    },
  };
  const gemini = {
    hooks: {
      BeforeTool: [
        {
          matcher: '.*',
          hooks: [
            {
              type: 'command',
              command: 'loopguard hook gemini',
              name: 'loopguard',
              timeout: 10000,
              loopguard: { owns: 'hooks' },
            },
          ],
        },
      ],
    },
  };
  writeFileSync(join(dir, '.claude', 'settings.json'), JSON.stringify(claude, null, 2));
  writeFileSync(join(dir, '.gemini', 'settings.json'), JSON.stringify(gemini, null, 2));
  return dir;
}

describe("loopguard's hook weakened in an agent's settings is refused (trust70 item 11)", () => {
  it.each([
    [
      'its timeout lowered',
      '"timeout": 10,\n            "loopguard"',
      '"timeout": 1,\n            "loopguard"',
    ],
    [
      'async added',
      '"command": "loopguard hook claude",',
      '"command": "loopguard hook claude",\n            "async": true,',
    ],
  ])('Claude Code: an Edit with %s', (_name, old_string, new_string) => {
    const dir = guarded();
    const input = { file_path: join(dir, '.claude', 'settings.json'), old_string, new_string };
    expect(hooksRemovedRefusal(call(dir, 'Edit', input), {})).toBe(HOOKS_REMOVED_REFUSED);
  });

  it('Gemini CLI: a replace that lowers its timeout', () => {
    const dir = guarded();
    const input = {
      file_path: join(dir, '.gemini', 'settings.json'),
      old_string: '"timeout": 10000',
      new_string: '"timeout": 500',
    };
    expect(hooksRemovedRefusal(call(dir, 'replace', input), {})).toBe(HOOKS_REMOVED_REFUSED);
  });

  it("left alone: its timeout raised, and the timeout of a hook of the user's own lowered", () => {
    const dir = guarded();
    const file = join(dir, '.claude', 'settings.json');
    for (const [old_string, new_string] of [
      ['"timeout": 30', '"timeout": 5'],
      ['"timeout": 10,\n            "loopguard"', '"timeout": 20,\n            "loopguard"'],
    ] as const)
      expect(
        hooksRemovedRefusal(call(dir, 'Edit', { file_path: file, old_string, new_string }), {}),
      ).toBeUndefined();
  });
});

describe('SHELLOPTS set is refused (trust70 item 11)', () => {
  it.each([
    'export SHELLOPTS=noexec',
    'SHELLOPTS=noexec claude -p hi',
    `echo 'SHELLOPTS=noexec' >> .env`,
    `jq '.env.SHELLOPTS = "noexec"' .claude/settings.json > s.json`,
  ])('shell: %s', (command) => {
    expect(ownStateRefusal(shellCall(command))).toBe(OWN_STATE_REFUSED);
  });

  it.each([
    ['Write', { file_path: '.env', content: 'API_URL=http://x\nSHELLOPTS=noexec\n' }],
    ['Write', { file_path: '.env.local', content: 'export SHELLOPTS=noexec\n' }],
    [
      'Edit',
      {
        file_path: '.claude/settings.json',
        old_string: '"env": {',
        new_string: '"env": { "SHELLOPTS": "noexec",',
      },
    ],
  ] as Array<[string, Record<string, unknown>]>)('%s', (tool, input) => {
    expect(ownStateRefusal(call('/repo', tool, input))).toBe(OWN_STATE_REFUSED);
  });

  it.each(['echo $SHELLOPTS', 'grep -rn SHELLOPTS docs/', '[[ "$SHELLOPTS" == *noexec* ]] && echo on'])(
    'left alone: %s',
    (command) => {
      expect(ownStateRefusal(shellCall(command))).toBeUndefined();
    },
  );
});
