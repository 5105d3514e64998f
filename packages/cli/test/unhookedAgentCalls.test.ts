import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GEMINI_TRUST_NAME } from '../src/hook/projectTrust.js';
import { answerHookEvent } from '../src/hook/runHook.js';
import {
  UNHOOKED_AGENT_REFUSED,
  UNHOOKED_HOME_REFUSED,
  UNHOOKED_TRUST_REFUSED,
  unhookedAgentRefusal,
} from '../src/hook/unhookedAgentCall.js';
import { claudeEvent, codexShellCall, shellCall, tempProject } from './hookHelpers.js';

// trust64: an agent the model starts with its hooks off runs its tool calls where loopguard sees
// none of them (`codex exec --disable hooks`, Claude Code's `--bare`): a switch the model flips.

/** A JSON file written, its folders made. */
const write = (file: string, value: unknown) => {
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, JSON.stringify(value));
};

describe('trust64: a nested agent started with its hooks off is refused', () => {
  it.each([
    'codex exec --disable hooks "fix the failing test"',
    'codex exec --disable=codex_hooks -s workspace-write "go on"',
    'cd sub && codex --disable hooks exec "retry"',
    'npx @openai/codex@0.169.0 exec --disable hooks "x"',
    'timeout 600 codex exec --enable web_search --disable hooks "x"',
    'claude -p --bare "run the tests until they pass"',
    'claude --safe-mode -p "go"',
    'claude --restricted -p "edit the parser"',
    'claude -p --setting-sources user "go"',
    'claude --setting-sources=project,local -p "go"',
    'CLAUDE_CODE_SIMPLE=1 claude -p "go"',
    'export CLAUDE_CODE_SAFE_MODE=1 && claude -p "go"',
    // what `--restricted` sets (redteam68: checked with Claude Code 2.1.330, seven identical failing
    // calls unjudged with it, nudged and stopped without)
    'CLAUDE_CODE_RESTRICTED=1 claude -p --allowedTools Bash "go"',
    'export CLAUDE_CODE_RESTRICTED=yes && claude -p "go"',
    'npx -y @anthropic-ai/claude-code --bare -p "go"',
    '/usr/local/bin/claude --bare -p go',
  ])('%s', (command) => {
    expect(unhookedAgentRefusal(shellCall(command))).toBe(UNHOOKED_AGENT_REFUSED);
  });

  it.each([
    'codex exec "fix the failing test"',
    'codex exec --enable hooks "x"',
    'codex exec --disable web_search "x"',
    'codex features list',
    'claude -p "summarise the diff"',
    'claude --settings .claude/ci.json -p "go"',
    'claude --setting-sources user,project,local -p "go"',
    'CLAUDE_CODE_SIMPLE=0 claude -p "go"',
    'CLAUDE_CODE_RESTRICTED=0 claude -p "go"',
    'echo claude --bare',
    'git commit -m "docs: codex exec --disable hooks runs unguarded"',
    'grep -rn -- "--bare" docs/',
    'npm run build -- --bare',
  ])('leaves alone: %s', (command) => {
    expect(unhookedAgentRefusal(shellCall(command))).toBeUndefined();
  });

  it("Codex's and Claude Code's calls are denied with why and what to do instead", async () => {
    const dir = tempProject();
    const codex = codexShellCall(dir, 'codex exec --disable hooks "fix it"');
    const codexReply = JSON.parse(
      await answerHookEvent('codex', JSON.stringify(codex), { env: {}, cwd: dir }),
    );
    expect(codexReply.hookSpecificOutput.permissionDecision).toBe('deny');
    const claude = claudeEvent(dir, 's1', 'PreToolUse', {
      tool_name: 'Bash',
      tool_input: { command: 'claude -p --bare "go"' },
      tool_use_id: 't',
    });
    const reply = JSON.parse(await answerHookEvent('claude', JSON.stringify(claude), { env: {}, cwd: dir }));
    expect(reply.hookSpecificOutput).toMatchObject({
      permissionDecision: 'deny',
      permissionDecisionReason: UNHOOKED_AGENT_REFUSED,
    });
    expect(UNHOOKED_AGENT_REFUSED).toContain('start it without that option');
  });
});

// trust65: a nested agent started with another home (`CODEX_HOME=/tmp/x codex exec`) loads the
// hooks of that home, not the user's: where the user's are loopguard's and the other home's are
// not, the nested agent runs unguarded, a switch the model flips as `--disable hooks` is. Codex's
// `--ignore-user-config` skips `config.toml`, where its hooks' trust is kept: it runs none of them.
describe("trust65: a nested agent started with another home whose hooks are not loopguard's is refused", () => {
  const hooked = (folder: string, file: string, hooks: Record<string, unknown>) => {
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, file), JSON.stringify({ hooks }));
  };
  const loopguard = (agent: string) => ({
    Stop: [{ hooks: [{ type: 'command', command: `loopguard hook ${agent}`, loopguard: { owns: 'file' } }] }],
  });
  /** A project, its user's home with loopguard's hooks in each agent's folder, and an empty folder. */
  function setup() {
    const dir = tempProject();
    const home = join(dir, 'home');
    hooked(join(home, '.codex'), 'hooks.json', loopguard('codex'));
    hooked(join(home, '.claude'), 'settings.json', loopguard('claude'));
    hooked(join(home, '.gemini'), 'settings.json', loopguard('gemini'));
    const other = join(dir, 'other');
    hooked(join(other, '.codex'), 'hooks.json', loopguard('codex'));
    mkdirSync(join(dir, 'empty'));
    return { dir, home, empty: join(dir, 'empty'), other };
  }

  it.each([
    'CODEX_HOME=$EMPTY codex exec "fix the failing test"',
    'env CLAUDE_CONFIG_DIR=$EMPTY claude -p "go"',
    'HOME=$EMPTY gemini -p "go"',
    'GEMINI_CLI_HOME=$EMPTY gemini -p "go"',
    'HOME=$EMPTY codex exec "go"',
    'export CODEX_HOME=$EMPTY && codex exec "go"',
    'CODEX_HOME=$(mktemp -d) codex exec "go"',
    'CLAUDE_CONFIG_DIR=./empty npx -y @anthropic-ai/claude-code -p "go"',
  ])('%s', (template) => {
    const { dir, home, empty } = setup();
    const command = template.replaceAll('$EMPTY', empty);
    expect(unhookedAgentRefusal(shellCall(command, dir), { HOME: home })).toBe(UNHOOKED_HOME_REFUSED);
  });

  it("codex exec --ignore-user-config (it skips the config.toml that holds its hooks' trust)", () => {
    expect(unhookedAgentRefusal(shellCall('codex exec --ignore-user-config "go"'))).toBe(
      UNHOOKED_AGENT_REFUSED,
    );
  });

  it.each([
    'CODEX_HOME=$HOME_DIR/.codex codex exec "go"',
    'CODEX_HOME=$OTHER/.codex codex exec "go"',
    'HOME=$EMPTY npm test',
    'CODEX_HOME=$EMPTY echo codex exec',
    'export CODEX_HOME=$EMPTY; ls',
  ])('leaves alone: %s', (template) => {
    const { dir, home, empty, other } = setup();
    const command = template
      .replaceAll('$EMPTY', empty)
      .replaceAll('$HOME_DIR', home)
      .replaceAll('$OTHER', other);
    expect(unhookedAgentRefusal(shellCall(command, dir), { HOME: home })).toBeUndefined();
  });

  it("leaves alone another home where the user's own hooks are not loopguard's either", () => {
    const { dir, empty } = setup();
    const bare = tempProject();
    expect(
      unhookedAgentRefusal(shellCall(`CODEX_HOME=${empty} codex exec "go"`, dir), { HOME: bare }),
    ).toBeUndefined();
  });
});

// trust66: a home unset (`env -u CODEX_HOME`, `unset`) or the whole environment cleared (`env -i`)
// places the nested agent's home as surely as setting it: the agent falls back to its default
// folder in the user's home (the passwd entry's, which `HOME` names). Judged by trust65's rule.
const hooked = (folder: string, agent: string, file: string) => {
  const command = `loopguard hook ${agent}`;
  write(join(folder, file), {
    hooks: { Stop: [{ hooks: [{ type: 'command', command, loopguard: { owns: 'file' } }] }] },
  });
};
/** A project whose user keeps each agent's home outside `HOME` (which holds none of loopguard's hooks). */
function setup() {
  const dir = tempProject();
  const bare = join(dir, 'bare');
  mkdirSync(bare);
  const kept = join(dir, 'kept');
  hooked(join(kept, '.codex'), 'codex', 'hooks.json');
  hooked(join(kept, '.claude'), 'claude', 'settings.json');
  hooked(join(kept, '.gemini'), 'gemini', 'settings.json');
  const env = {
    HOME: bare,
    CODEX_HOME: join(kept, '.codex'),
    CLAUDE_CONFIG_DIR: join(kept, '.claude'),
    GEMINI_CLI_HOME: kept,
  };
  return { dir, env };
}

describe('trust66: a nested agent started with its home unset or its environment cleared', () => {
  it.each([
    'env -u CODEX_HOME codex exec "fix the failing test"',
    'env --unset=CODEX_HOME codex exec "go"',
    'env --unset CODEX_HOME codex exec "go"',
    'env -uCODEX_HOME codex exec "go"',
    'unset CODEX_HOME; codex exec "go"',
    '(unset CODEX_HOME; codex exec "go")',
    '{ unset CODEX_HOME; codex exec "go"; }',
    'export -n CODEX_HOME; codex exec "go"',
    'env -vu CODEX_HOME codex exec "go"',
    'env -i codex exec "go"',
    'env -i PATH=/usr/bin:/bin codex exec "go"',
    'env - codex exec "go"',
    'env --ignore-environment PATH="$PATH" claude -p "go"',
    'env -u CLAUDE_CONFIG_DIR claude -p "go"',
    'env -u GEMINI_CLI_HOME gemini -p "go"',
    'env -i gemini -p "go"',
  ])('%s', (command) => {
    const { dir, env } = setup();
    expect(unhookedAgentRefusal(shellCall(command, dir), env)).toBe(UNHOOKED_HOME_REFUSED);
  });

  it.each([
    'env -u OPENAI_BASE_URL codex exec "go"',
    'env -i CODEX_HOME=$KEPT/.codex codex exec "go"',
    'env -u CODEX_HOME CODEX_HOME=$KEPT/.codex codex exec "go"',
    'unset CODEX_HOME; ls',
    'env -u CODEX_HOME npm test',
  ])('leaves alone: %s', (template) => {
    const { dir, env } = setup();
    const command = template.replaceAll('$KEPT', join(dir, 'kept'));
    expect(unhookedAgentRefusal(shellCall(command, dir), env)).toBeUndefined();
  });

  it("leaves alone `env -i` where the user's homes are the default ones", () => {
    const { dir } = setup();
    const home = join(dir, 'kept');
    const commands = [
      'env -i codex exec "go"',
      'env -i PATH=/bin claude -p "go"',
      'CODEX_HOME= codex exec "go"',
    ];
    for (const command of commands)
      expect(unhookedAgentRefusal(shellCall(command, dir), { HOME: home }), command).toBeUndefined();
  });
});

// trust66: Gemini CLI 0.61.0 reads its trust in the project from the environment before any file
// (`checkPathTrust`): `GEMINI_RESTRICTED_MODE=true` and `GEMINI_CLI_TRUST_WORKSPACE=false` trust
// nothing, `GEMINI_CLI_TRUSTED_FOLDERS_PATH` names the trusted folders file. An untrusted project's
// settings are dropped, its hooks with them: where they are loopguard's, the nested one runs unguarded.
describe('trust66: a nested Gemini CLI started with the project untrusted by its environment', () => {
  const stop = [
    { hooks: [{ type: 'command', command: 'loopguard hook gemini', loopguard: { owns: 'file' } }] },
  ];
  /** A project whose own `.gemini/settings.json` holds loopguard's hooks, trusted in the user's home. */
  function setup() {
    const dir = tempProject();
    write(join(dir, '.gemini', 'settings.json'), { hooks: { AfterTool: stop } });
    const home = join(dir, 'home');
    write(join(home, '.gemini', GEMINI_TRUST_NAME), { [dir]: 'TRUST_FOLDER' });
    return { dir, home };
  }

  it.each([
    'GEMINI_CLI_TRUST_WORKSPACE=false gemini -p "fix the failing test"',
    'GEMINI_RESTRICTED_MODE=true gemini -p "go"',
    'export GEMINI_RESTRICTED_MODE=true; gemini -p "go"',
    'GEMINI_CLI_TRUSTED_FOLDERS_PATH=/nonexistent/trusted.json gemini -p "go"',
    'env GEMINI_CLI_TRUSTED_FOLDERS_PATH=$(mktemp) npx @google/gemini-cli -p "go"',
  ])('%s', (command) => {
    const { dir, home } = setup();
    expect(unhookedAgentRefusal(shellCall(command, dir), { HOME: home })).toBe(UNHOOKED_TRUST_REFUSED);
  });

  it("`env -u GEMINI_CLI_TRUST_WORKSPACE` where the user's environment is what trusts the project", () => {
    const { dir } = setup();
    const env = { HOME: tempProject(), GEMINI_CLI_TRUST_WORKSPACE: 'true' };
    const command = 'env -u GEMINI_CLI_TRUST_WORKSPACE gemini -p "go"';
    expect(unhookedAgentRefusal(shellCall(command, dir), env)).toBe(UNHOOKED_TRUST_REFUSED);
  });

  it.each([
    'GEMINI_CLI_TRUST_WORKSPACE=true gemini -p "go"',
    'GEMINI_RESTRICTED_MODE=false gemini -p "go"',
    'GEMINI_CLI_TRUSTED_FOLDERS_PATH=$HOME_DIR/.gemini/trustedFolders.json gemini -p "go"',
    'GEMINI_CLI_TRUST_WORKSPACE=false codex exec "go"',
    'GEMINI_RESTRICTED_MODE=true npm test',
  ])('leaves alone: %s', (template) => {
    const { dir, home } = setup();
    const command = template.replaceAll('$HOME_DIR', home);
    expect(unhookedAgentRefusal(shellCall(command, dir), { HOME: home })).toBeUndefined();
  });

  it("leaves alone the user's own hooks (they need no trust) and a trusted folders file Gemini CLI does not read", () => {
    const { dir, home } = setup();
    write(join(home, '.gemini', 'settings.json'), { hooks: { AfterTool: stop } });
    const untrust = 'GEMINI_CLI_TRUST_WORKSPACE=false gemini -p "go"';
    expect(unhookedAgentRefusal(shellCall(untrust, dir), { HOME: home })).toBeUndefined();
    const trustOff = join(dir, 'trustOff');
    write(join(trustOff, '.gemini', 'settings.json'), { security: { folderTrust: { enabled: false } } });
    const other = 'GEMINI_CLI_TRUSTED_FOLDERS_PATH=/nonexistent/trusted.json gemini -p "go"';
    expect(unhookedAgentRefusal(shellCall(other, dir), { HOME: trustOff })).toBeUndefined();
  });
});

// trust66: the fast path's hooks (`mcp_tool`) call loopguard's MCP server, registered in the
// `.claude.json` of Claude Code's home: a nested Claude Code with another home reads the project's
// hooks, but its `.claude.json` has no such server, so they run nothing.
describe("trust66: Claude Code's fast-path hooks guard a nested one only where its home registers loopguard's server", () => {
  const server = { loopguard: { type: 'stdio', command: 'loopguard', args: ['mcp'] } };
  const fastPath = { type: 'mcp_tool', server: 'loopguard', tool: 'hook' };
  const command = { type: 'command', command: 'loopguard hook claude', loopguard: { owns: 'file' } };
  function setup(entry: Record<string, unknown>) {
    const dir = tempProject();
    // as `init claude` writes the fast path: its `SessionEnd` hook is a command, which sees no call
    const sessionEnd = [{ hooks: [{ ...command, timeout: 5 }] }];
    write(join(dir, '.claude', 'settings.json'), {
      hooks: { PreToolUse: [{ matcher: '*', hooks: [entry] }], SessionEnd: sessionEnd },
    });
    const home = join(dir, 'home');
    write(join(home, '.claude.json'), { projects: { [dir]: { mcpServers: server } } });
    const served = join(dir, 'served');
    write(join(served, '.claude.json'), { mcpServers: server });
    mkdirSync(join(dir, 'empty'));
    return { dir, home, served, empty: join(dir, 'empty') };
  }
  const fill = (line: string, paths: { empty: string; served: string }) =>
    line.replaceAll('$EMPTY', paths.empty).replaceAll('$SERVED', paths.served);

  it.each(['CLAUDE_CONFIG_DIR=$EMPTY claude -p "go"', 'HOME=$EMPTY claude -p "go"'])('%s', (line) => {
    const paths = setup(fastPath);
    expect(unhookedAgentRefusal(shellCall(fill(line, paths), paths.dir), { HOME: paths.home })).toBe(
      UNHOOKED_HOME_REFUSED,
    );
  });

  it.each([
    [fastPath, 'CLAUDE_CONFIG_DIR=$SERVED claude -p "go"'],
    [fastPath, 'claude -p "go"'],
    [command, 'CLAUDE_CONFIG_DIR=$EMPTY claude -p "go"'],
    [command, 'HOME=$EMPTY claude -p "go"'],
  ])('leaves alone: %j, %s', (entry, line) => {
    const paths = setup(entry);
    expect(
      unhookedAgentRefusal(shellCall(fill(line, paths), paths.dir), { HOME: paths.home }),
    ).toBeUndefined();
  });
});

// redteam68: Claude Code's `--strict-mcp-config` loads only the servers `--mcp-config` names, and a
// server `--mcp-config` names `loopguard` is the one the fast path's hooks call; a `--settings` file
// (written by the model's `Write`, which reads only a settings.json's text) may hold
// `disableAllHooks`: checked with the real Claude Code 2.1.330 (offline, `init claude`, seven
// identical failing calls): with any of them, no nudge, no stop, the session completed; without,
// nudged and stopped.
describe("redteam68: a nested Claude Code without loopguard's MCP server, or with another under its name, is refused", () => {
  const server = { loopguard: { type: 'stdio', command: 'loopguard', args: ['mcp'] } };
  const fastPath = { type: 'mcp_tool', server: 'loopguard', tool: 'hook' };
  const command = { type: 'command', command: 'loopguard hook claude', loopguard: { owns: 'file' } };
  function setup(entry: Record<string, unknown>) {
    const dir = tempProject();
    write(join(dir, '.claude', 'settings.json'), {
      hooks: { PreToolUse: [{ matcher: '*', hooks: [entry] }] },
    });
    const home = join(dir, 'home');
    write(join(home, '.claude.json'), { projects: { [dir]: { mcpServers: server } } });
    write(join(dir, 'fake.json'), { mcpServers: { loopguard: { command: 'node', args: ['fake.js'] } } });
    write(join(dir, 'docs.json'), { mcpServers: { docs: { command: 'docs-server' } } });
    return { dir, home };
  }

  it.each([
    `claude -p --strict-mcp-config --mcp-config '{"mcpServers":{}}' "go"`,
    'claude --strict-mcp-config -p "go"',
    'claude -p --strict-mcp-config --mcp-config docs.json "go"',
  ])('the fast path: %s', (line) => {
    const { dir, home } = setup(fastPath);
    expect(unhookedAgentRefusal(shellCall(line, dir), { HOME: home })).toBe(UNHOOKED_AGENT_REFUSED);
  });

  it.each([
    `claude -p --mcp-config '{"mcpServers":{"loopguard":{"command":"true"}}}' "go"`,
    'claude -p --mcp-config docs.json fake.json "go"',
    'claude -p --mcp-config=fake.json "go"',
  ])('another server under its name, the fast path or commands: %s', (line) => {
    for (const entry of [fastPath, command]) {
      const { dir, home } = setup(entry);
      expect(unhookedAgentRefusal(shellCall(line, dir), { HOME: home })).toBe(UNHOOKED_AGENT_REFUSED);
    }
  });

  it.each(['claude -p --settings ci.json "go"', 'claude --settings=./ci.json -p "go"'])(
    'a --settings file that switches every hook off (checked live too): %s',
    (line) => {
      const { dir, home } = setup(command);
      write(join(dir, 'ci.json'), { disableAllHooks: true });
      expect(unhookedAgentRefusal(shellCall(line, dir), { HOME: home })).toBe(UNHOOKED_AGENT_REFUSED);
    },
  );

  it.each([
    [fastPath, 'claude -p --mcp-config docs.json "go"'],
    [command, 'claude -p --settings docs.json "go"'],
    [command, 'claude -p --strict-mcp-config --mcp-config docs.json "go"'],
  ])('leaves alone: %j, %s', (entry, line) => {
    const { dir, home } = setup(entry);
    expect(unhookedAgentRefusal(shellCall(line, dir), { HOME: home })).toBeUndefined();
  });
});

// trust67: `sudo` starts the agent as another account with sudo's environment (reset: the target's
// `HOME`, no `CODEX_HOME`, unless kept by `-E` or `--preserve-env`), `env -S` splits a string into
// more words (options, assignments, the agent itself), `env -C` / `sudo -D` take a folder: each was
// read as the end of the wrappers, so the agent and what the command set before it went unread.
describe('trust67: a nested agent behind `sudo`, `env -S` or `env -C` is judged by the one rule', () => {
  it.each([
    ['sudo codex exec "go"', UNHOOKED_HOME_REFUSED],
    ['sudo -u ci codex exec "go"', UNHOOKED_HOME_REFUSED],
    ['sudo --user=ci -n codex exec "go"', UNHOOKED_HOME_REFUSED],
    ['sudo -E env -u CODEX_HOME codex exec "go"', UNHOOKED_HOME_REFUSED],
    ['sudo -E CODEX_HOME=/tmp/x codex exec "go"', UNHOOKED_HOME_REFUSED],
    ['sudo --preserve-env=PATH codex exec "go"', UNHOOKED_HOME_REFUSED],
    ['sudo -u ci claude -p "go"', UNHOOKED_HOME_REFUSED],
    ['sudo -E codex exec --disable hooks "go"', UNHOOKED_AGENT_REFUSED],
    [`env -S 'CODEX_HOME=/tmp/x codex exec "go"'`, UNHOOKED_HOME_REFUSED],
    [`env -S'-u CODEX_HOME' codex exec "go"`, UNHOOKED_HOME_REFUSED],
    [`env --split-string='-i codex exec go'`, UNHOOKED_HOME_REFUSED],
    [`env -S 'codex exec --disable hooks go'`, UNHOOKED_AGENT_REFUSED],
    ['env -C . CODEX_HOME=/tmp/x codex exec "go"', UNHOOKED_HOME_REFUSED],
    ['env --chdir sub -u CLAUDE_CONFIG_DIR claude -p "go"', UNHOOKED_HOME_REFUSED],
    ['sudo -D . -u ci codex exec "go"', UNHOOKED_HOME_REFUSED],
    ['env -C sub claude --bare -p "go"', UNHOOKED_AGENT_REFUSED],
  ])('%s', (command, refusal) => {
    const { dir, env } = setup();
    expect(unhookedAgentRefusal(shellCall(command, dir), env)).toBe(refusal);
  });

  it.each([
    'sudo -E codex exec "go"',
    'sudo --preserve-env=CODEX_HOME,PATH codex exec "go"',
    'sudo -E -u ci claude -p "go"',
    `env -S 'FOO=1 codex exec "go"'`,
    'env -C sub codex exec "go"',
    'sudo apt-get install -y ripgrep',
    'env -C /tmp ls && codex exec "go"',
  ])('leaves alone: %s', (command) => {
    const { dir, env } = setup();
    expect(unhookedAgentRefusal(shellCall(command, dir), env)).toBeUndefined();
  });

  it("judges Claude Code in the folder it starts in: the project's own command hooks guard it under any home", () => {
    const { dir, env } = setup();
    hooked(join(dir, '.claude'), 'claude', 'settings.json');
    // `sudo -C` is `--close-from`, not a folder; `sudo -D` and `env -C` are
    expect(unhookedAgentRefusal(shellCall('sudo -C 3 -u ci claude -p "go"', dir), env)).toBeUndefined();
    expect(unhookedAgentRefusal(shellCall('sudo -u ci claude -p "go"', dir), env)).toBeUndefined();
    expect(unhookedAgentRefusal(shellCall('sudo -D /tmp -u ci claude -p "go"', dir), env)).toBe(
      UNHOOKED_HOME_REFUSED,
    );
  });

  it("refuses `sudo -E` where the user's homes are the default ones: the target's home is sudo's", () => {
    const { dir } = setup();
    const env = { HOME: join(dir, 'kept') };
    expect(unhookedAgentRefusal(shellCall('sudo -E codex exec "go"', dir), env)).toBe(UNHOOKED_HOME_REFUSED);
    expect(
      unhookedAgentRefusal(shellCall('sudo --preserve-env=HOME codex exec "go"', dir), env),
    ).toBeUndefined();
  });
});

// trust68: the accounts' other doors. `sudo -u "$USER"` (or the user's own name) starts the agent
// as the user, with sudo's reset environment but the user's own home; `doas` resets it as sudo
// does; `runuser -u` and `su` keep it but for `HOME` (`-m`/`-p` keep that too, `-`/`-l` clear it);
// `su -c '…'`, `runuser … -c '…'` and `sh -c '…'` run a command in a string, judged as a command.
describe('trust68: a nested agent behind `sudo -u "$USER"`, `doas`, `runuser`, `su -c` or `sh -c`', () => {
  const user = (env: Record<string, string>) => ({ ...env, USER: 'dev', LOGNAME: 'dev' });

  it.each([
    ['sudo -u "$USER" codex exec "go"', UNHOOKED_HOME_REFUSED],
    ['sudo -u dev codex exec "go"', UNHOOKED_HOME_REFUSED],
    ['doas codex exec "go"', UNHOOKED_HOME_REFUSED],
    ['doas -u ci claude -p "go"', UNHOOKED_HOME_REFUSED],
    ['doas -n codex exec --disable hooks "go"', UNHOOKED_AGENT_REFUSED],
    ['runuser -l -u dev codex exec "go"', UNHOOKED_HOME_REFUSED],
    [`su - dev -c 'codex exec "go"'`, UNHOOKED_HOME_REFUSED],
    [`su --command='claude --bare -p go' dev`, UNHOOKED_AGENT_REFUSED],
    [`runuser dev -c 'env -u CODEX_HOME codex exec go'`, UNHOOKED_HOME_REFUSED],
    [`bash -c 'codex exec --disable hooks go'`, UNHOOKED_AGENT_REFUSED],
    [`sh -c "cd sub && env -u CODEX_HOME codex exec go"`, UNHOOKED_HOME_REFUSED],
    [`CODEX_HOME=/tmp/x bash -lc 'codex exec go'`, UNHOOKED_HOME_REFUSED],
  ])('%s', (command, refusal) => {
    const { dir, env } = setup();
    expect(unhookedAgentRefusal(shellCall(command, dir), user(env))).toBe(refusal);
  });

  it.each([
    'sudo -E -u "$USER" codex exec "go"',
    'sudo -u dev --preserve-env=CODEX_HOME codex exec "go"',
    'runuser -u dev -- codex exec "go"',
    'runuser -m -u ci codex exec "go"',
    'runuser -u ci -- codex exec "go"',
    `su -m ci -c 'codex exec go'`,
    `su dev -c 'codex exec go'`,
    `su - postgres -c 'psql -c "select 1"'`,
    `bash -c 'codex exec go'`,
    `sh -c 'npm test && gemini --version'`,
    'doas apt-get install -y ripgrep',
  ])('leaves alone: %s', (command) => {
    const { dir, env } = setup();
    expect(unhookedAgentRefusal(shellCall(command, dir), user(env))).toBeUndefined();
  });

  it("reads the user's own account as its home, another's as one not known to guard, where the user's homes are the default ones", () => {
    const { dir } = setup();
    hooked(join(dir, 'kept', '.codex'), 'codex', 'hooks.json');
    const env = { HOME: join(dir, 'kept'), USER: 'dev' };
    expect(unhookedAgentRefusal(shellCall('sudo -u "$USER" codex exec "go"', dir), env)).toBeUndefined();
    expect(unhookedAgentRefusal(shellCall('sudo -u dev codex exec "go"', dir), env)).toBeUndefined();
    expect(unhookedAgentRefusal(shellCall(`su - dev -c 'codex exec go'`, dir), env)).toBeUndefined();
    expect(unhookedAgentRefusal(shellCall('doas -u dev codex exec go', dir), env)).toBeUndefined();
    // another account, or `$USER` the command changes first, is not the user's
    expect(unhookedAgentRefusal(shellCall('sudo -u ci codex exec "go"', dir), env)).toBe(
      UNHOOKED_HOME_REFUSED,
    );
    expect(unhookedAgentRefusal(shellCall('runuser -u ci -- codex exec "go"', dir), env)).toBe(
      UNHOOKED_HOME_REFUSED,
    );
    expect(unhookedAgentRefusal(shellCall(`su -c 'codex exec "go"'`, dir), env)).toBe(UNHOOKED_HOME_REFUSED);
    expect(unhookedAgentRefusal(shellCall(`su ci -c "claude -p go"`, dir), env)).toBe(UNHOOKED_HOME_REFUSED);
    expect(unhookedAgentRefusal(shellCall(`su -m ci -c "codex exec go"`, dir), env)).toBeUndefined();
    expect(unhookedAgentRefusal(shellCall('USER=ci; sudo -u "$USER" codex exec', dir), env)).toBe(
      UNHOOKED_HOME_REFUSED,
    );
    // in su's string, `$USER` is the target's (su sets it)
    expect(unhookedAgentRefusal(shellCall(`su -m ci -c 'sudo -u "$USER" codex exec'`, dir), env)).toBe(
      UNHOOKED_HOME_REFUSED,
    );
  });
});
