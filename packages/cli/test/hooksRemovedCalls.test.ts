import { linkSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { HookEvent } from '../src/hook/hookEvent.js';
import { HOOKS_REMOVED_REFUSED, hooksRemovedRefusal } from '../src/hook/hooksRemovedCall.js';
import { answerHookEvent } from '../src/hook/runHook.js';
import { claudeEvent, codexShellCall, geminiEvent, tempProject } from './hookHelpers.js';

// trust64: the model taking loopguard's hooks out of an agent's hooks file (Claude Code's and
// Gemini CLI's settings, Codex's hooks.json and config.toml) ran unrefused: the next session ran
// unguarded. A file edit is judged by the file it leaves; a shell command that writes the file is
// refused (the model edits it with its edit tool). Another setting changed is left alone.

const entry = (command: string, owns: string) => ({
  type: 'command',
  command,
  timeout: 10,
  loopguard: { owns },
});

/** Claude Code's project settings as `init claude` leaves them beside the user's own. */
const CLAUDE_SETTINGS = {
  permissions: { allow: ['Bash(ls)'] },
  hooks: {
    PreToolUse: [
      { matcher: 'Bash', hooks: [{ type: 'command', command: 'echo pre' }] },
      {
        matcher: '*',
        hooks: [{ type: 'mcp_tool', server: 'loopguard', tool: 'hook', loopguard: { owns: 'list' } }],
      },
    ],
    PostToolBatch: [
      { hooks: [{ type: 'mcp_tool', server: 'loopguard', tool: 'hook', loopguard: { owns: 'list' } }] },
    ],
    Stop: [{ hooks: [entry('loopguard hook claude', 'list')] }],
  },
};

const GEMINI_SETTINGS = {
  model: { name: 'gemini-2.5-pro' },
  hooks: {
    BeforeTool: [
      { matcher: '.*', hooks: [{ ...entry('loopguard hook gemini', 'hooks'), name: 'loopguard' }] },
    ],
  },
};

const CODEX_HOOKS = {
  hooks: {
    PreToolUse: [{ matcher: '', hooks: [entry('loopguard hook codex', 'file')] }],
    Stop: [{ hooks: [entry('loopguard hook codex', 'file')] }],
  },
};

/** Codex's hooks written by hand in its config.toml (no marker: the command tells them). */
const CODEX_CONFIG = `model = "o3"

[[hooks.PreToolUse]]
matcher = ""
[[hooks.PreToolUse.hooks]]
type = "command"
command = "loopguard hook codex"
`;

/** The three agents' hooks files in `dir` as loopguard's `init` leaves them (the project's, or a home's). */
function installHooks(dir: string): void {
  for (const folder of ['.claude', '.gemini', '.codex']) mkdirSync(join(dir, folder), { recursive: true });
  writeFileSync(join(dir, '.claude', 'settings.json'), JSON.stringify(CLAUDE_SETTINGS, null, 2));
  writeFileSync(join(dir, '.claude', 'settings.local.json'), JSON.stringify(CLAUDE_SETTINGS, null, 2));
  writeFileSync(join(dir, '.gemini', 'settings.json'), JSON.stringify(GEMINI_SETTINGS, null, 2));
  writeFileSync(join(dir, '.codex', 'hooks.json'), JSON.stringify(CODEX_HOOKS, null, 2));
  writeFileSync(join(dir, '.codex', 'config.toml'), CODEX_CONFIG);
}

/** Claude Code's `.claude.json` with loopguard's MCP server registered for `project`, as `init claude` leaves it. */
const claudeState = (project: string) => ({
  numStartups: 3,
  projects: {
    [project]: {
      mcpServers: {
        github: { type: 'stdio', command: 'gh-mcp', args: [] },
        loopguard: {
          type: 'stdio',
          command: '/usr/bin/node',
          args: ['/opt/loopguard/dist/bin.js', 'mcp'],
          env: {},
        },
      },
    },
  },
});

/** A project and its user's home, each with loopguard's hooks installed, and a `.vscode` of the project's own. */
function guardedProject(): string {
  const dir = tempProject();
  installHooks(dir);
  installHooks(join(dir, 'home'));
  writeFileSync(join(dir, 'home', '.claude.json'), JSON.stringify(claudeState(dir), null, 2));
  mkdirSync(join(dir, '.vscode'));
  writeFileSync(join(dir, '.vscode', 'settings.json'), '{"hooks": {}}');
  return dir;
}

const call = (dir: string, tool: string, input: Record<string, unknown>) =>
  ({ kind: 'before_tool', tool, input, projectDir: dir, sessionId: 's', callId: 'c' }) as HookEvent;

/** The refusal of a shell `command` in the project `dir`, its home `dir/home`. */
const shell = (dir: string, command: string) =>
  hooksRemovedRefusal(call(dir, 'shell', { command }), { HOME: join(dir, 'home') });

const text = (value: unknown) => JSON.stringify(value, null, 2);
/** The settings file's text of its `Stop` event, as an Edit's `old_string` takes it out. */
const settingsText = text(CLAUDE_SETTINGS);
const stopGroup = settingsText.slice(
  settingsText.indexOf(',\n    "Stop"'),
  settingsText.lastIndexOf('\n  }'),
);

/** A Codex patch of `file` that takes `removed` out and puts `added` in. */
const patch = (file: string, removed: string[], added: string[] = []) =>
  [
    '*** Begin Patch',
    `*** Update File: ${file}`,
    '@@',
    ...removed.map((line) => `-${line}`),
    ...added.map((line) => `+${line}`),
    '*** End Patch',
  ].join('\n');

describe("trust64: a file edit that takes loopguard's hooks out of an agent's hooks file is refused", () => {
  const refused: Array<[string, string, (dir: string) => Record<string, unknown>]> = [
    [
      "Claude Code: a Write of the settings without loopguard's PostToolBatch entry (refused69)",
      'Write',
      (dir) => {
        const { PostToolBatch: _batch, ...hooks } = CLAUDE_SETTINGS.hooks;
        return {
          file_path: join(dir, '.claude/settings.json'),
          content: JSON.stringify({ ...CLAUDE_SETTINGS, hooks }, null, 2),
        };
      },
    ],
    [
      'Claude Code: an Edit that takes out the Stop group',
      'Edit',
      (dir) => ({ file_path: join(dir, '.claude/settings.json'), old_string: stopGroup, new_string: '' }),
    ],
    [
      'Claude Code: a Write of the settings without the hooks',
      'Write',
      () => ({
        file_path: '.claude/settings.json',
        content: text({ permissions: CLAUDE_SETTINGS.permissions }),
      }),
    ],
    [
      "Claude Code: an Edit that changes loopguard's matcher to match nothing",
      'Edit',
      () => ({
        file_path: '.claude/settings.json',
        old_string: '"matcher": "*"',
        new_string: '"matcher": "None"',
      }),
    ],
    [
      'Claude Code: a MultiEdit that renames the hooks key',
      'MultiEdit',
      (dir) => ({
        file_path: join(dir, '.claude/settings.json'),
        edits: [{ old_string: '"hooks": {', new_string: '"hooks_off": {' }],
      }),
    ],
    [
      'Claude Code: an Edit that leaves the file no JSON',
      'Edit',
      () => ({
        file_path: '.claude/settings.json',
        old_string: '"permissions": {',
        new_string: '"permissions": {{',
      }),
    ],
    [
      "Gemini CLI: a replace of loopguard's command with another",
      'replace',
      () => ({
        file_path: '.gemini/settings.json',
        old_string: '"command": "loopguard hook gemini"',
        new_string: '"command": "true"',
      }),
    ],
    [
      'Gemini CLI: a write_file of {}',
      'write_file',
      () => ({ file_path: '.gemini/settings.json', content: '{}' }),
    ],
    [
      "Claude Code: an Edit of .claude.json that takes loopguard's MCP server out (its fast path's hooks call it)",
      'Edit',
      (dir) => ({
        file_path: join(dir, 'home', '.claude.json'),
        old_string: '"loopguard": {',
        new_string: '"loopguard-off": {',
      }),
    ],
  ];
  it.each(refused)('%s', (_name, tool, input) => {
    const dir = guardedProject();
    expect(hooksRemovedRefusal(call(dir, tool, input(dir)))).toBe(HOOKS_REMOVED_REFUSED);
  });

  it.each([
    [
      "a patch that takes loopguard's command out of config.toml",
      patch('.codex/config.toml', ['command = "loopguard hook codex"'], ['command = "true"']),
    ],
    ['a patch that deletes hooks.json', '*** Begin Patch\n*** Delete File: .codex/hooks.json\n*** End Patch'],
    [
      'a patch that moves hooks.json away, in an apply_patch heredoc',
      "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: .codex/hooks.json\n*** Move to: .codex/hooks.off\n*** End Patch\nEOF",
    ],
  ])('Codex: %s', (_name, command) => {
    const dir = guardedProject();
    expect(hooksRemovedRefusal(call(dir, 'apply_patch', { command }))).toBe(HOOKS_REMOVED_REFUSED);
  });

  it('shell66: a patch that moves another file onto a hooks file is judged by what it leaves there', () => {
    const dir = guardedProject();
    writeFileSync(join(dir, 'hooks.off'), '{}');
    writeFileSync(join(dir, 'settings.new'), text({ ...CLAUDE_SETTINGS, model: 'opus' }));
    const move = (from: string, to: string, hunk: string[] = []) =>
      ['*** Begin Patch', `*** Update File: ${from}`, `*** Move to: ${to}`, ...hunk, '*** End Patch'].join(
        '\n',
      );
    const refusal = (command: string) => hooksRemovedRefusal(call(dir, 'apply_patch', { command }));
    // a file without loopguard's hooks put in place of one that holds them
    expect(refusal(move('hooks.off', '.codex/hooks.json'))).toBe(HOOKS_REMOVED_REFUSED);
    expect(refusal(move('hooks.off', 'home/.claude/settings.json'))).toBe(HOOKS_REMOVED_REFUSED);
    // one that keeps them but whose hunk takes one out
    const server = ['@@', '-            "server": "loopguard",', '+            "server": "other",'];
    expect(refusal(move('settings.new', '.claude/settings.json', server))).toBe(HOOKS_REMOVED_REFUSED);
    // one that keeps them all, another setting changed: left alone
    expect(refusal(move('settings.new', '.claude/settings.json'))).toBeUndefined();
    expect(refusal(move('hooks.off', '.vscode/settings.json'))).toBeUndefined();
  });

  it('a patch of hooks.json that takes out the PreToolUse group, as Codex writes it', () => {
    const dir = guardedProject();
    const lines = JSON.stringify(CODEX_HOOKS, null, 2).split('\n');
    const start = lines.findIndex((line) => line.includes('"PreToolUse"'));
    const end = lines.findIndex((line, index) => index > start && line.trim() === '],');
    const body = lines.slice(start, end + 1);
    const command = patch('.codex/hooks.json', body);
    expect(hooksRemovedRefusal(call(dir, 'apply_patch', { command }))).toBe(HOOKS_REMOVED_REFUSED);
  });

  it('leaves alone an edit that changes another setting, adds a hook of the user, or touches another settings file', () => {
    const dir = guardedProject();
    for (const [tool, input] of [
      [
        'Edit',
        {
          file_path: '.claude/settings.json',
          old_string: '"Bash(ls)"',
          new_string: '"Bash(ls)", "Bash(npm test)"',
        },
      ],
      ['Write', { file_path: '.claude/settings.json', content: text({ ...CLAUDE_SETTINGS, model: 'opus' }) }],
      ['Edit', { file_path: '.claude/settings.json', old_string: 'echo pre', new_string: 'echo before' }],
      ['Edit', { file_path: '.claude/settings.json', old_string: 'not in the file', new_string: '' }],
      [
        'replace',
        { file_path: '.gemini/settings.json', old_string: 'gemini-2.5-pro', new_string: 'gemini-2.5-flash' },
      ],
      ['Write', { file_path: '.vscode/settings.json', content: '{}' }],
      [
        'Edit',
        { file_path: 'home/.claude.json', old_string: '"numStartups": 3', new_string: '"numStartups": 4' },
      ],
      ['Write', { file_path: 'src/settings.json', content: '{}' }],
      [
        'apply_patch',
        {
          command: [
            '*** Begin Patch',
            '*** Update File: .codex/config.toml',
            '@@',
            ' model = "o3"',
            '+',
            '+[mcp_servers.docs]',
            '+command = "npx"',
            '*** End Patch',
          ].join('\n'),
        },
      ],
      [
        'apply_patch',
        {
          command: patch(
            '.codex/hooks.json',
            ['    "Stop": ['],
            ['    "Stop": [ {"hooks": [{"type": "command", "command": "notify"}]},'],
          ),
        },
      ],
      ['apply_patch', { command: '*** Begin Patch\n*** Delete File: .vscode/settings.json\n*** End Patch' }],
    ] as const)
      expect(hooksRemovedRefusal(call(dir, tool, { ...input })), JSON.stringify(input)).toBeUndefined();
  });
});

describe("trust64: a shell command that writes an agent's hooks file is refused", () => {
  it.each([
    'rm .claude/settings.json',
    'rm -rf .claude',
    'rm -f ~/.claude/settings.local.json',
    "echo '{}' > .claude/settings.local.json",
    "jq 'del(.hooks)' .claude/settings.json > /tmp/s.json && mv /tmp/s.json .claude/settings.json",
    "jq 'del(.hooks.BeforeTool)' .gemini/settings.json | sponge .gemini/settings.json",
    "sed -i '/loopguard/d' ~/.codex/hooks.json",
    `python3 -c "import json; s=json.load(open('.gemini/settings.json')); s.pop('hooks'); json.dump(s, open('.gemini/settings.json','w'))"`,
    'mv ~/.codex/hooks.json ~/.codex/hooks.json.bak',
    'mv .codex .codex-off',
    'cp /dev/null "$CODEX_HOME/hooks.json"',
    'truncate -s 0 ~/.claude/settings.json',
    'cp /tmp/settings.json .claude/',
    "cat > .codex/hooks.json <<'EOF'\n{}\nEOF",
    'git checkout HEAD~3 -- .claude/settings.json',
    "sed -i '/hooks.PreToolUse/,+5d' ~/.codex/config.toml",
    'rm ~/.codex/config.toml',
    'echo \'model = "o3"\' > ~/.codex/config.toml',
    'echo "" | tee .gemini/settings.json',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell's parameter expansion
    'rm "${CLAUDE_CONFIG_DIR:-$HOME/.claude}/settings.json"',
    // the MCP server the fast path's hooks call, unregistered: each hook then runs nothing
    'claude mcp remove loopguard',
    'claude mcp remove -s user loopguard',
    'claude mcp rm "loopguard" --scope project',
    'rm ~/.claude.json',
    // another server registered under loopguard's name: a local scope's shadows the user's (checked
    // with Claude Code 2.1.330's `claude mcp get`), and its answers are the hooks' (redteam68)
    'claude mcp add loopguard -- /bin/true',
    'claude mcp add -s local loopguard -- node fake-server.js',
    `claude mcp add-json loopguard '{"type":"stdio","command":"true"}'`,
    'claude mcp add --transport http "loopguard" http://127.0.0.1:9/mcp',
    // loopguard's own report written over the file: HTML where Claude Code reads JSON (redteam68)
    'loopguard scan --html .claude/settings.json',
    'loopguard scan ~/.claude/projects --html ~/.claude/settings.json',
    'loopguard scan --html=.codex/hooks.json',
    'loopguard scan --html ~/.claude.json',
  ])('%s', (command) => {
    expect(shell(guardedProject(), command)).toBe(HOOKS_REMOVED_REFUSED);
  });

  it.each([
    'cat .claude/settings.json',
    'jq .hooks ~/.claude/settings.json',
    'grep -n loopguard ~/.codex/hooks.json',
    'sed -n 1,20p .claude/settings.json',
    'cp .claude/settings.json /tmp/settings.backup.json',
    'diff .claude/settings.json /tmp/settings.backup.json',
    'git add .claude/settings.json && git commit -m "chore: share the settings"',
    'ls -la .claude .codex',
    'cat >> ~/.codex/config.toml <<\'EOF\'\n[mcp_servers.docs]\ncommand = "npx"\nEOF',
    `sed -i 's/model = .*/model = "o3"/' ~/.codex/config.toml`,
    'mkdir -p .claude/commands && cp review.md .claude/commands/',
    'rm -rf build .cache node_modules',
    "echo '{}' > .vscode/settings.json",
    'rm src/settings.json',
    'cat .claude/settings.json > /tmp/copy.json',
    'claude mcp remove github',
    'claude mcp list',
    'jq .mcpServers ~/.claude.json',
    'loopguard scan --html report.html ~/.claude/projects',
    'claude mcp add github -- npx -y @modelcontextprotocol/server-github',
    'claude mcp add docs -- node server.js --name loopguard',
    'loopguard status --db .loopguard/state.db',
  ])('leaves alone: %s', (command) => {
    expect(shell(guardedProject(), command)).toBeUndefined();
  });

  it("leaves alone a shell write of a hooks file that holds none of loopguard's hooks, or none at all", () => {
    const dir = tempProject();
    mkdirSync(join(dir, '.claude'));
    writeFileSync(join(dir, '.claude', 'settings.local.json'), '{"permissions": {"allow": []}}');
    for (const command of [
      `echo '{"permissions": {"allow": ["Bash(npm test)"]}}' > .claude/settings.json`,
      `jq '.permissions.allow += ["Bash(ls)"]' .claude/settings.local.json > /tmp/s.json && mv /tmp/s.json .claude/settings.local.json`,
      'rm -rf .claude',
      'rm ~/.codex/hooks.json',
    ])
      expect(shell(dir, command), command).toBeUndefined();
    // the same, where it cannot be told which file it is: refused
    for (const command of [
      'cd sub && rm .claude/settings.local.json',
      'rm "$DIR/.claude/settings.local.json"',
    ])
      expect(shell(dir, command), command).toBe(HOOKS_REMOVED_REFUSED);
  });
});

describe('shell66: a shell write whose text is in the command is judged by what it leaves', () => {
  const kept = text({ ...CLAUDE_SETTINGS, permissions: { allow: ['Bash(ls)', 'Bash(npm test)'] } });
  it.each([
    `cat > .claude/settings.json <<'EOF'\n${kept}\nEOF`,
    `cat <<"JSON" > ~/.claude/settings.local.json\n${kept}\nJSON\necho written`,
    `echo '${kept}' > .claude/settings.json`,
  ])("leaves alone one that keeps loopguard's hooks: %s", (command) => {
    expect(shell(guardedProject(), command)).toBeUndefined();
  });

  it.each([
    'cat > .claude/settings.json <<\'EOF\'\n{"permissions": {}}\nEOF',
    `cat > .claude/settings.json <<EOF\n${kept.replace('"Bash(ls)"', '"$(cat /tmp/x)"')}\nEOF`,
    `echo '${kept}' > .claude/settings.json && rm .gemini/settings.json`,
    `cat > .claude/settings.json <<'EOF'\n${kept}\n\nnot json\nEOF`,
    `cat > .claude/settings.json <<'EOF'\n${kept}\nEOF2\n}\nEOF`,
    `cd sub && cat > .claude/settings.json <<'EOF'\n${kept}\nEOF`,
    // what jq leaves is known only by running the model's filter: refused, told to use the edit tool
    `jq '.permissions.allow += ["Bash(npm test)"]' .claude/settings.json > /tmp/s.json && mv /tmp/s.json .claude/settings.json`,
  ])('refuses one that does not, or whose text is not known: %s', (command) => {
    expect(shell(guardedProject(), command)).toBe(HOOKS_REMOVED_REFUSED);
  });
});

describe('trust64: each agent refuses it, as a denied call', () => {
  it("Claude Code's Edit, Gemini CLI's shell, Codex's patch", async () => {
    const dir = guardedProject();
    const claude = claudeEvent(dir, 's1', 'PreToolUse', {
      tool_name: 'Write',
      tool_input: { file_path: join(dir, '.claude', 'settings.json'), content: '{}' },
      tool_use_id: 't',
    });
    expect(
      JSON.parse(await answerHookEvent('claude', JSON.stringify(claude), { env: {}, cwd: dir })),
    ).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'deny',
        permissionDecisionReason: HOOKS_REMOVED_REFUSED,
      },
    });
    const gemini = geminiEvent(dir, 'g1', 'BeforeTool', {
      tool_name: 'run_shell_command',
      tool_input: { command: 'rm .gemini/settings.json' },
    });
    expect(
      JSON.parse(await answerHookEvent('gemini', JSON.stringify(gemini), { env: {}, cwd: dir })),
    ).toMatchObject({
      decision: 'deny',
    });
    const codex = codexShellCall(dir, '*** Begin Patch\n*** Delete File: .codex/hooks.json\n*** End Patch');
    const reply = JSON.parse(await answerHookEvent('codex', JSON.stringify(codex), { env: {}, cwd: dir }));
    expect(reply.hookSpecificOutput.permissionDecision).toBe('deny');
    expect(HOOKS_REMOVED_REFUSED).toContain('edit it with your file edit tool');
  });
});

// trust65: the model untrusting the project whose hooks are loopguard's: Gemini CLI runs no
// project hook in a folder it does not trust (`~/.gemini/trustedFolders.json`), Codex loads no
// project `.codex/` in one whose `trust_level` is not "trusted" (`$CODEX_HOME/config.toml`).
describe("trust65: an edit that untrusts a project holding loopguard's hooks is refused", () => {
  /** A guarded project its user's Gemini CLI and Codex trust, as their own prompts leave them. */
  function trustedProject(): string {
    const dir = guardedProject();
    writeFileSync(
      join(dir, 'home', '.gemini', 'trustedFolders.json'),
      text({ [dir]: 'TRUST_FOLDER', '/elsewhere': 'DO_NOT_TRUST' }),
    );
    writeFileSync(
      join(dir, 'home', '.codex', 'config.toml'),
      `model = "o3"\n\n[projects."${dir}"]\ntrust_level = "trusted"\n`,
    );
    return dir;
  }
  const home = (dir: string, file: string) => join(dir, 'home', file);

  it.each<[string, string, (dir: string) => Record<string, unknown>]>([
    [
      'Gemini CLI: a replace that sets the project to DO_NOT_TRUST',
      'replace',
      (dir) => ({
        file_path: home(dir, '.gemini/trustedFolders.json'),
        old_string: '": "TRUST_FOLDER"',
        new_string: '": "DO_NOT_TRUST"',
      }),
    ],
    [
      'Gemini CLI: a write_file that leaves the project out',
      'write_file',
      (dir) => ({ file_path: home(dir, '.gemini/trustedFolders.json'), content: '{}' }),
    ],
    [
      'Gemini CLI: a write_file that distrusts a folder inside it by a longer rule',
      'write_file',
      (dir) => ({
        file_path: home(dir, '.gemini/trustedFolders.json'),
        content: text({ [dir]: 'TRUST_FOLDER', [`${dir}/`]: 'DO_NOT_TRUST' }),
      }),
    ],
    [
      "Codex: an Edit of config.toml that sets the project's trust_level to untrusted",
      'Edit',
      (dir) => ({
        file_path: home(dir, '.codex/config.toml'),
        old_string: 'trust_level = "trusted"',
        new_string: 'trust_level = "untrusted"',
      }),
    ],
    [
      "Codex: a Write of config.toml without the project's table",
      'Write',
      (dir) => ({ file_path: home(dir, '.codex/config.toml'), content: 'model = "o3"\n' }),
    ],
  ])('%s', (_name, tool, input) => {
    const dir = trustedProject();
    expect(hooksRemovedRefusal(call(dir, tool, input(dir)))).toBe(HOOKS_REMOVED_REFUSED);
  });

  // trust66: Codex reads its trust in an inline table as in a table of its own
  it("Codex: an edit out of an inline table's trust, and one into it, are read", () => {
    const dir = trustedProject();
    const config = home(dir, '.codex/config.toml');
    const inline = (level: string) => `projects = { "${dir}" = { trust_level = "${level}" } }`;
    writeFileSync(config, `${inline('trusted')}\nmodel = "o3"\n`);
    const out = {
      file_path: config,
      old_string: inline('trusted'),
      new_string: `[projects."${dir}"]\ntrust_level = "untrusted"`,
    };
    expect(hooksRemovedRefusal(call(dir, 'Edit', out))).toBe(HOOKS_REMOVED_REFUSED);
    const kept = {
      file_path: config,
      old_string: inline('trusted'),
      new_string: `[projects."${dir}"]\ntrust_level = "trusted"`,
    };
    expect(hooksRemovedRefusal(call(dir, 'Edit', kept))).toBeUndefined();
    writeFileSync(config, `[projects."${dir}"]\ntrust_level = "trusted"\n`);
    const into = {
      file_path: config,
      old_string: `[projects."${dir}"]\ntrust_level = "trusted"`,
      new_string: inline('trusted'),
    };
    expect(hooksRemovedRefusal(call(dir, 'Edit', into))).toBeUndefined();
  });

  it("Gemini CLI: folder trust switched back on in the user's settings, where no rule trusts the project", () => {
    const dir = trustedProject();
    writeFileSync(join(dir, 'home', '.gemini', 'trustedFolders.json'), '{}');
    writeFileSync(
      join(dir, 'home', '.gemini', 'settings.json'),
      text({ security: { folderTrust: { enabled: false } } }),
    );
    const file = home(dir, '.gemini/settings.json');
    for (const input of [
      { file_path: file, old_string: '"enabled": false', new_string: '"enabled": true' },
      { file_path: file, content: '{}' },
    ])
      expect(hooksRemovedRefusal(call(dir, 'replace', input)), JSON.stringify(input)).toBe(
        HOOKS_REMOVED_REFUSED,
      );
    expect(shell(dir, `sed -i 's/false/true/' ~/.gemini/settings.json`)).toBe(HOOKS_REMOVED_REFUSED);
    // another setting of the same file, and the project's own (Gemini CLI ignores its folder trust)
    expect(
      hooksRemovedRefusal(
        call(dir, 'replace', {
          file_path: file,
          old_string: '"security"',
          new_string: '"ui": {}, "security"',
        }),
      ),
    ).toBeUndefined();
    writeFileSync(
      join(dir, '.gemini', 'settings.json'),
      text({ ...GEMINI_SETTINGS, security: { folderTrust: { enabled: false } } }),
    );
    expect(
      hooksRemovedRefusal(
        call(dir, 'replace', {
          file_path: '.gemini/settings.json',
          old_string: '"enabled": false',
          new_string: '"enabled": true',
        }),
      ),
    ).toBeUndefined();
  });

  it('Codex: a patch that untrusts the project', () => {
    const dir = trustedProject();
    const command = patch(
      home(dir, '.codex/config.toml'),
      ['trust_level = "trusted"'],
      ['trust_level = "untrusted"'],
    );
    expect(hooksRemovedRefusal(call(dir, 'apply_patch', { command }))).toBe(HOOKS_REMOVED_REFUSED);
  });

  it.each([
    "echo '{}' > ~/.gemini/trustedFolders.json",
    'rm ~/.gemini/trustedFolders.json',
    `sed -i 's/TRUST_FOLDER/DO_NOT_TRUST/' ~/.gemini/trustedFolders.json`,
    `sed -i 's/trust_level = "trusted"/trust_level = "untrusted"/' ~/.codex/config.toml`,
  ])('a shell write: %s', (command) => {
    expect(shell(trustedProject(), command)).toBe(HOOKS_REMOVED_REFUSED);
  });

  it('leaves alone a rule of another folder, a trust given, and a project without loopguard', () => {
    const dir = trustedProject();
    for (const [tool, input] of [
      [
        'replace',
        {
          file_path: home(dir, '.gemini/trustedFolders.json'),
          old_string: '"/elsewhere"',
          new_string: '"/other"',
        },
      ],
      [
        'Edit',
        {
          file_path: home(dir, '.codex/config.toml'),
          old_string: 'model = "o3"',
          new_string: 'model = "o4"',
        },
      ],
      [
        'Write',
        {
          file_path: home(dir, '.codex/config.toml'),
          content: `[projects."${dir}"]\ntrust_level = "trusted"\n\n[projects."/other"]\ntrust_level = "untrusted"\n`,
        },
      ],
    ] as const)
      expect(hooksRemovedRefusal(call(dir, tool, { ...input })), JSON.stringify(input)).toBeUndefined();
    expect(shell(dir, 'cat ~/.gemini/trustedFolders.json')).toBeUndefined();
    expect(shell(dir, `sed -i 's/model = .*/model = "o4"/' ~/.codex/config.toml`)).toBeUndefined();
    // the project holds none of loopguard's hooks: its trust is the user's business
    const bare = tempProject();
    mkdirSync(join(bare, 'home', '.gemini'), { recursive: true });
    writeFileSync(join(bare, 'home', '.gemini', 'trustedFolders.json'), text({ [bare]: 'TRUST_FOLDER' }));
    expect(
      hooksRemovedRefusal(
        call(bare, 'write_file', { file_path: 'home/.gemini/trustedFolders.json', content: '{}' }),
      ),
    ).toBeUndefined();
    expect(shell(bare, 'rm ~/.gemini/trustedFolders.json')).toBeUndefined();
  });
});

// trust67: Gemini CLI 0.61.0 reads its trusted folders from the file `GEMINI_CLI_TRUSTED_FOLDERS_PATH`
// names, in place of `~/.gemini/trustedFolders.json` (`Storage.getTrustedFoldersPath`): a write
// that untrusts the project there leaves its hooks unread as surely (trust65's edit rule).
describe('trust67: the trusted folders file `GEMINI_CLI_TRUSTED_FOLDERS_PATH` names is judged as trust65 judges an edit', () => {
  function named(guarded = true) {
    const dir = guarded ? guardedProject() : tempProject();
    const file = join(dir, 'trust', 'folders.json');
    mkdirSync(join(dir, 'trust'));
    writeFileSync(file, text({ [dir]: 'TRUST_FOLDER', '/elsewhere': 'DO_NOT_TRUST' }));
    const env = { HOME: join(dir, 'home'), GEMINI_CLI_TRUSTED_FOLDERS_PATH: file };
    const run = (tool: string, input: Record<string, unknown>) =>
      hooksRemovedRefusal(call(dir, tool, input), env);
    return { dir, file, run };
  }

  it.each([
    `echo '{}' > $GEMINI_CLI_TRUSTED_FOLDERS_PATH`,
    'rm "$GEMINI_CLI_TRUSTED_FOLDERS_PATH"',
    `sed -i 's/TRUST_FOLDER/DO_NOT_TRUST/' \${GEMINI_CLI_TRUSTED_FOLDERS_PATH}`,
    `echo '{}' > FILE`,
    'rm FILE',
    'cp /dev/null FILE',
    `python3 -c "open('FILE', 'w').write('{}')"`,
  ])('a shell write: %s', (template) => {
    const { file, run } = named();
    expect(run('shell', { command: template.replaceAll('FILE', file) })).toBe(HOOKS_REMOVED_REFUSED);
  });

  it('an edit and a write that untrust the project', () => {
    const { file, run } = named();
    expect(run('write_file', { file_path: file, content: '{}' })).toBe(HOOKS_REMOVED_REFUSED);
    const replace = { file_path: file, old_string: '": "TRUST_FOLDER"', new_string: '": "DO_NOT_TRUST"' };
    expect(run('replace', replace)).toBe(HOOKS_REMOVED_REFUSED);
  });

  it('leaves alone a read, a write that keeps the trust, and a project without loopguard', () => {
    const { dir, file, run } = named();
    expect(run('shell', { command: 'cat "$GEMINI_CLI_TRUSTED_FOLDERS_PATH"' })).toBeUndefined();
    const keeps = JSON.stringify({ [dir]: 'TRUST_FOLDER', '/other': 'DO_NOT_TRUST' });
    expect(run('shell', { command: `echo '${keeps}' > ${file}` })).toBeUndefined();
    const replace = { file_path: file, old_string: '"/elsewhere"', new_string: '"/other"' };
    expect(run('replace', replace)).toBeUndefined();
    const bare = named(false);
    expect(bare.run('shell', { command: `rm ${bare.file}` })).toBeUndefined();
    expect(bare.run('write_file', { file_path: bare.file, content: '{}' })).toBeUndefined();
  });

  it.each([
    'cp /dev/null ~/.gemini/trustedFolders.json',
    ': > ~/.gemini/trustedFolders.json',
    `printf '{}' > ~/.gemini/trustedFolders.json`,
    'ln -sf /dev/null ~/.gemini/trustedFolders.json',
    'mv /tmp/empty.json ~/.gemini/trustedFolders.json',
    `python3 -c "import os; os.remove(os.path.expanduser('~/.gemini/trustedFolders.json'))"`,
  ])('held: a shell write of `~/.gemini/trustedFolders.json`: %s', (command) => {
    const dir = guardedProject();
    writeFileSync(join(dir, 'home', '.gemini', 'trustedFolders.json'), text({ [dir]: 'TRUST_FOLDER' }));
    expect(shell(dir, command)).toBe(HOOKS_REMOVED_REFUSED);
  });
});

// trust67: Codex reads its config.toml as TOML: lines inside a multi-line string, or after a `#`,
// are no table and no hook, though the line reader took them for one.
describe("trust67: Codex's config.toml: a hook or a trust put into a multi-line string or a comment", () => {
  const hooksPart = CODEX_CONFIG.slice(CODEX_CONFIG.indexOf('[[hooks'));
  const write = (dir: string, file: string, content: string) =>
    hooksRemovedRefusal(call(dir, 'Write', { file_path: file, content }), { HOME: join(dir, 'home') });

  it.each([
    ['a multi-line string', `model = "o3"\nnotes = """\n${hooksPart}"""\n`],
    ['a literal multi-line string', `model = "o3"\nnotes = '''\n${hooksPart}'''\n`],
    ['a comment', CODEX_CONFIG.replace('command = ', '# command = ')],
  ])("the project's hooks into %s: refused", (_name, content) => {
    const dir = guardedProject();
    expect(write(dir, join(dir, '.codex', 'config.toml'), content)).toBe(HOOKS_REMOVED_REFUSED);
  });

  it("the project's trust into a multi-line string: refused", () => {
    const dir = guardedProject();
    const file = join(dir, 'home', '.codex', 'config.toml');
    writeFileSync(file, `model = "o3"\n\n[projects."${dir}"]\ntrust_level = "trusted"\n`);
    const content = `model = "o3"\nnotes = """\n[projects."${dir}"]\ntrust_level = "trusted"\n"""\n`;
    expect(write(dir, file, content)).toBe(HOOKS_REMOVED_REFUSED);
    const kept = `model = "o3"\nnotes = """\nsee [tui]\n"""\n\n[projects."${dir}"] # mine\ntrust_level = "trusted"\n`;
    expect(write(dir, file, kept)).toBeUndefined();
  });

  it('leaves alone a multi-line string or a comment beside the hooks', () => {
    const dir = guardedProject();
    const content = `# mine\nmodel = "o3"\ninstructions = """\nbe brief\n"""\n${hooksPart}`;
    expect(write(dir, join(dir, '.codex', 'config.toml'), content)).toBeUndefined();
  });
});

// trust68: a Codex patch knew a trust file by its name alone; the file the environment names is
// one to a patch too, judged by what it leaves as the shell write and the edit are (trust67).
describe('trust68: a Codex patch of the trusted folders file `GEMINI_CLI_TRUSTED_FOLDERS_PATH` names', () => {
  function named() {
    const dir = guardedProject();
    const file = join(dir, 'trust', 'folders.json');
    mkdirSync(join(dir, 'trust'));
    writeFileSync(file, `{\n  "${dir}": "TRUST_FOLDER",\n  "/elsewhere": "DO_NOT_TRUST"\n}\n`);
    const env = { HOME: join(dir, 'home'), GEMINI_CLI_TRUSTED_FOLDERS_PATH: file };
    const patch = (...lines: string[]) =>
      hooksRemovedRefusal(
        call(dir, 'shell', { command: ['*** Begin Patch', ...lines, '*** End Patch'].join('\n') }),
        env,
      );
    return { dir, file, patch };
  }

  it('refuses a patch that untrusts the project, deletes the file, or moves it away', () => {
    const { dir, file, patch } = named();
    const untrust = [
      `*** Update File: ${file}`,
      '@@',
      `-  "${dir}": "TRUST_FOLDER",`,
      `+  "${dir}": "DO_NOT_TRUST",`,
    ];
    expect(patch(...untrust)).toBe(HOOKS_REMOVED_REFUSED);
    expect(patch(`*** Delete File: ${file}`)).toBe(HOOKS_REMOVED_REFUSED);
    expect(patch(`*** Update File: ${file}`, `*** Move to: ${join(dir, 'trust', 'old.json')}`)).toBe(
      HOOKS_REMOVED_REFUSED,
    );
    expect(patch(`*** Add File: ${file}`, '+{}')).toBe(HOOKS_REMOVED_REFUSED);
    expect(patch('*** Update File: trust/folders.json', '@@', `-  "${dir}": "TRUST_FOLDER",`)).toBe(
      HOOKS_REMOVED_REFUSED,
    );
  });

  it('leaves alone a patch that keeps the trust', () => {
    const { file, patch } = named();
    const other = [
      `*** Update File: ${file}`,
      '@@',
      '-  "/elsewhere": "DO_NOT_TRUST"',
      '+  "/other": "DO_NOT_TRUST"',
    ];
    expect(patch(...other)).toBeUndefined();
  });
});

// trust68: a literal write in two steps (the text to a temporary file, then `mv` onto the hooks
// file) leaves the same file as shell66's one-step `cat > FILE <<'EOF'`: judged by what it leaves,
// where nothing can come between the two steps or change what they run.
describe('trust68: a two-step literal write onto a hooks or trust file is judged by what it leaves', () => {
  const kept = text({ ...CLAUDE_SETTINGS, permissions: { allow: ['Bash(ls)', 'Bash(npm test)'] } });
  const dropped = text({ permissions: { allow: ['Bash(ls)'] } });

  it.each([
    `cat > /tmp/s.json <<'EOF'\n${kept}\nEOF\nmv /tmp/s.json .claude/settings.json`,
    `cat > .claude/s.tmp <<'EOF' && mv -f .claude/s.tmp .claude/settings.json\n${kept}\nEOF`,
    `cat <<'EOF' > s.tmp\n${kept}\nEOF\nmv s.tmp ~/.claude/settings.json && echo done`,
    `echo '${kept}' > s.tmp && mv s.tmp .claude/settings.json`,
    `echo '${kept}' > s.tmp; mv --force s.tmp .claude/settings.json`,
    // a text that says `enable`, `alias` or `PATH=` renames nothing
    `cat > .claude/settings.json <<'EOF'\n${kept.replace('Bash(ls)', 'Bash(alias ll=ls; enable x; hash y; PATH=z)')}\nEOF`,
  ])("leaves alone one that keeps loopguard's hooks: %s", (command) => {
    expect(shell(guardedProject(), command)).toBeUndefined();
  });

  it.each([
    `cat > /tmp/s.json <<'EOF'\n${dropped}\nEOF\nmv /tmp/s.json .claude/settings.json`,
    `echo '${dropped}' > s.tmp && mv s.tmp .claude/settings.json`,
    // something between the steps, or after them on the temporary file, or steps that may race
    `cat > s.tmp <<'EOF'\n${kept}\nEOF\nsed -i d s.tmp\nmv s.tmp .claude/settings.json`,
    `echo '${kept}' > s.tmp & mv s.tmp .claude/settings.json`,
    `echo '${kept}' > s.tmp | mv s.tmp .claude/settings.json`,
    `echo '${kept}' > s.tmp && mv other.tmp .claude/settings.json`,
    `cat > s.tmp <<'EOF' && sed -i d s.tmp && mv s.tmp .claude/settings.json\n${kept}\nEOF`,
    // a program the command renames, or a PATH it changes, is not the one read
    `mv() { : > "$2"; }\necho '${kept}' > s.tmp && mv s.tmp .claude/settings.json`,
    `alias mv='cp /dev/null'; echo '${kept}' > s.tmp && mv s.tmp .claude/settings.json`,
    `PATH=./bin:$PATH; echo '${kept}' > s.tmp && mv s.tmp .claude/settings.json`,
    `export PATH=./bin:$PATH && cat > s.tmp <<'EOF'\n${kept}\nEOF\nmv s.tmp .claude/settings.json`,
  ])('refuses one that does not, or whose effect is not known: %s', (command) => {
    expect(shell(guardedProject(), command)).toBe(HOOKS_REMOVED_REFUSED);
  });

  it.each([
    `cat() { :; }\ncat > .claude/settings.json <<'EOF'\n${kept}\nEOF`,
    `echo() { :; }; echo '${kept}' > .claude/settings.json`,
    `PATH=./bin:$PATH; cat > .claude/settings.json <<'EOF'\n${kept}\nEOF`,
  ])('refuses a one-step literal write by a program the command renames: %s', (command) => {
    expect(shell(guardedProject(), command)).toBe(HOOKS_REMOVED_REFUSED);
  });

  it("the whole Codex hook lets the one and the two steps that keep loopguard's hooks run", async () => {
    const dir = guardedProject();
    for (const command of [
      `cat > /tmp/s.json <<'EOF'\n${kept}\nEOF\nmv /tmp/s.json .claude/settings.json`,
      `cat > .claude/settings.json <<'EOF'\n${kept}\nEOF`,
    ]) {
      const event = JSON.stringify(codexShellCall(dir, command));
      const reply = await answerHookEvent('codex', event, { env: { HOME: join(dir, 'home') }, cwd: dir });
      expect(reply, command).not.toContain('deny');
    }
  });

  it('refuses it through a temporary file that is a hard link', () => {
    const dir = guardedProject();
    linkSync(join(dir, '.claude', 'settings.json'), join(dir, 's.tmp'));
    const dropped = text({ permissions: {} });
    expect(shell(dir, `echo '${kept}' > s.tmp && mv s.tmp .claude/settings.json`)).toBe(
      HOOKS_REMOVED_REFUSED,
    );
    expect(shell(dir, `echo '${dropped}' > /tmp/x.json && mv /tmp/x.json .claude/settings.json`)).toBe(
      HOOKS_REMOVED_REFUSED,
    );
  });

  it('refuses it through a temporary file that is a link (the write lands elsewhere)', () => {
    const dir = guardedProject();
    symlinkSync(join(dir, '.claude', 'settings.local.json'), join(dir, 's.tmp'));
    expect(shell(dir, `echo '${kept}' > s.tmp && mv s.tmp .claude/settings.json`)).toBe(
      HOOKS_REMOVED_REFUSED,
    );
  });

  it('judges the trusted folders file by the trust it leaves', () => {
    const dir = guardedProject();
    const file = join(dir, 'home', '.gemini', 'trustedFolders.json');
    writeFileSync(file, text({ [dir]: 'TRUST_FOLDER' }));
    const write = (rules: unknown) =>
      `echo '${text(rules)}' > t.tmp && mv t.tmp ~/.gemini/trustedFolders.json`;
    expect(shell(dir, write({ [dir]: 'TRUST_FOLDER', '/x': 'DO_NOT_TRUST' }))).toBeUndefined();
    expect(shell(dir, write({ [dir]: 'DO_NOT_TRUST' }))).toBe(HOOKS_REMOVED_REFUSED);
  });
});
