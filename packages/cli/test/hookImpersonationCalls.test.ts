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
    // a server of the model's renamed loopguard: the replacement's key is followed by sed's `/` (trust71)
    `sed -i 's/"github":/"loopguard":/' .mcp.json`,
    `printf '{"mcpServers":{"loopguard":\n{"command":"true"}}}' > .mcp.json`,
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

  it.each([
    'cat .mcp.json',
    "jq '.mcpServers | keys' .mcp.json",
    'jq .mcpServers.loopguard ~/.claude.json',
    // a search for the key ends at its `:`, no value after it (trust71)
    `grep '"loopguard":' ~/.claude.json`,
    `grep -n '"loopguard": ' .mcp.json | head -3`,
    `rg -c '"loopguard":'|| echo none; cat .mcp.json`,
  ])('left alone: %s', (command) => {
    expect(ownStateRefusal(shellCall(command))).toBeUndefined();
  });
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

// trust71: a variable that runs code in, or changes, the process that runs loopguard's hook
// command, set where the agent hands it to its hooks (a settings file's `env`, Codex's
// `config.toml`, a dotenv or a shell's startup file): `BASH_ENV` (bash's startup file),
// `BASH_FUNC_<name>%%` (a function run for the command of that name), the dynamic linker's
// `LD_*`/`DYLD_*`, node's `NODE_OPTIONS` (cleared by the commands init writes, not by a `--command`
// of the user's). The same principle as `SHELLOPTS`; set for one command of the model's own, it
// reaches no hook.
describe("a variable that runs code in the hook's process, set where the agent hands it to its hooks (trust71)", () => {
  it.each([
    ['Write', { file_path: '.claude/settings.json', content: '{"env": {"BASH_ENV": "/tmp/x.sh"}}' }],
    [
      'Edit',
      {
        file_path: '/repo/.claude/settings.local.json',
        old_string: '"env": {',
        new_string: '"env": { "LD_PRELOAD": "/tmp/x.so",',
      },
    ],
    [
      'MultiEdit',
      {
        file_path: '.claude/settings.json',
        edits: [{ old_string: '"env": {', new_string: '"env": {"NODE_OPTIONS": "--require /tmp/x.js",' }],
      },
    ],
    [
      'write_file',
      { file_path: '.gemini/settings.json', content: '{"env": {"DYLD_INSERT_LIBRARIES": "/tmp/x.dylib"}}' },
    ],
    [
      'Write',
      {
        file_path: '/home/me/.codex/config.toml',
        content: '[shell_environment_policy]\nset = { LD_PRELOAD = "/tmp/x.so" }\n',
      },
    ],
    ['Write', { file_path: '.envrc', content: 'export BASH_ENV=/tmp/x.sh\n' }],
    ['Write', { file_path: '.env', content: 'PORT=3000\nBASH_FUNC_loopguard%%=() { true; }\n' }],
    [
      'Edit',
      { file_path: '/home/me/.bashrc', old_string: '# end', new_string: 'export LD_AUDIT=/tmp/a.so\n# end' },
    ],
  ] as Array<[string, Record<string, unknown>]>)('%s %j', (tool, input) => {
    expect(ownStateRefusal(call('/repo', tool, input))).toBe(OWN_STATE_REFUSED);
  });

  it.each([
    `echo '{"env": {"BASH_ENV": "/tmp/x.sh"}}' > .claude/settings.local.json`,
    `jq '.env.LD_PRELOAD = "/tmp/x.so"' ~/.claude/settings.json > s.json && mv s.json ~/.claude/settings.json`,
    `jq '.env.NODE_OPTIONS = "--require=/tmp/x.js"' .claude/settings.json | sponge .claude/settings.json`,
    `jq '.env["BASH_FUNC_loopguard%%"] = "() { true; }"' .claude/settings.json > s && mv s .claude/settings.json`,
    `cat > .claude/settings.json <<'EOF'\n{"env": {"LD_AUDIT": "/tmp/a.so"}}\nEOF`,
    `printf '[shell_environment_policy]\\nset = { LD_PRELOAD = "/tmp/x.so" }\\n' >> ~/.codex/config.toml`,
    `echo 'export BASH_ENV=/tmp/x.sh' >> ~/.bashrc`,
    `echo "DYLD_INSERT_LIBRARIES=/tmp/x.dylib" >> .env.local`,
  ])('shell: %s', (command) => {
    expect(ownStateRefusal(shellCall(command))).toBe(OWN_STATE_REFUSED);
  });

  it.each([
    // set for one command of the model's own: it reaches no hook
    'NODE_OPTIONS=--max-old-space-size=4096 npm run build',
    'LD_LIBRARY_PATH=/opt/lib ./bin/app',
    'export NODE_OPTIONS="--max-old-space-size=8192" && npx tsc -p tsconfig.json',
    'BASH_ENV=./ci/env.sh bash scripts/test.sh',
    // read, not set
    'grep -rn LD_PRELOAD ~/.bashrc',
    "jq '.env.NODE_OPTIONS' ~/.claude/settings.json",
    `grep '"NODE_OPTIONS":' .claude/settings.json`,
    'echo $LD_LIBRARY_PATH; cat ~/.codex/config.toml',
  ])('left alone: %s', (command) => {
    expect(ownStateRefusal(shellCall(command))).toBeUndefined();
  });

  it.each([
    // `ENV` is read by an interactive shell only: the hook's `sh -c` never reads it
    ['Write', { file_path: '.claude/settings.json', content: '{"env": {"NODE_ENV": "test", "ENV": "dev"}}' }],
    ['Write', { file_path: '.env', content: 'ENV=production\nNODE_ENV=production\nFIELD_NAME=x\n' }],
    ['Write', { file_path: 'docs/setup.md', content: 'Set `"LD_PRELOAD": "libx.so"` in your shell.\n' }],
    ['Write', { file_path: 'config.toml', content: '[server]\nport = 80\n' }],
  ] as Array<[string, Record<string, unknown>]>)('left alone: %s %j', (tool, input) => {
    expect(ownStateRefusal(call('/repo', tool, input))).toBeUndefined();
  });
});
