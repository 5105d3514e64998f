import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { addHooks, isLoopguardCommand, removeHooks } from '../src/hook/hookSettings.js';
import { lineDiff } from '../src/hook/lineDiff.js';
import { tempProject } from './hookHelpers.js';
import { loopguard } from './runHelpers.js';

const EXISTING = {
  model: 'opus',
  env: { FOO: '1' },
  permissions: { allow: ['Bash(ls)'], deny: [] },
  hooks: {
    PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'echo pre', timeout: 5 }] }],
    Notification: [{ hooks: [{ type: 'command', command: 'notify-send hi' }] }],
    SessionEnd: [],
  },
  statusLine: { type: 'command', command: 'echo status' },
};

function settingsFile(dir: string, agent: 'claude' | 'gemini') {
  return join(dir, agent === 'claude' ? '.claude' : '.gemini', 'settings.json');
}

function writeSettings(dir: string, agent: 'claude' | 'gemini', value: unknown) {
  mkdirSync(join(dir, agent === 'claude' ? '.claude' : '.gemini'), { recursive: true });
  writeFileSync(settingsFile(dir, agent), JSON.stringify(value));
}

const read = (path: string) => JSON.parse(readFileSync(path, 'utf8'));

describe('loopguard init', () => {
  it.each(['claude', 'gemini'] as const)(
    '%s: merges its hooks, keeps every other key and hook, backs up, and --remove restores the file',
    async (agent) => {
      const dir = tempProject();
      writeSettings(dir, agent, EXISTING);
      const installed = await loopguard(dir, ['init', agent, '--project']);
      expect(installed.code, installed.stderr).toBe(0);
      expect(installed.stdout).toMatch(/loopguard guards (Claude Code|Gemini CLI) on /);
      const settings = read(settingsFile(dir, agent));
      expect(settings).toMatchObject({
        model: 'opus',
        env: { FOO: '1' },
        permissions: EXISTING.permissions,
        statusLine: EXISTING.statusLine,
      });
      expect(settings.hooks.PreToolUse[0]).toEqual(EXISTING.hooks.PreToolUse[0]);
      expect(settings.hooks.Notification).toEqual(EXISTING.hooks.Notification);
      const events =
        agent === 'claude'
          ? ['PreToolUse', 'PostToolUse', 'PostToolUseFailure', 'Stop']
          : ['BeforeTool', 'AfterTool', 'AfterAgent'];
      for (const event of events) {
        const ours = (settings.hooks[event] as Array<{ hooks: Array<{ command: string }> }>)
          .flatMap((g) => g.hooks)
          .filter((h) => isLoopguardCommand(h.command, agent));
        expect(ours, event).toHaveLength(1);
      }
      const backups = readdirSync(join(settingsFile(dir, agent), '..')).filter((f) =>
        f.includes('loopguard-backup'),
      );
      expect(backups).toHaveLength(1);
      expect(read(join(settingsFile(dir, agent), '..', backups[0] as string))).toEqual(EXISTING);

      const again = await loopguard(dir, ['init', agent]);
      expect(again.stdout).toContain('loopguard hooks already installed');
      expect(read(settingsFile(dir, agent))).toEqual(settings);

      const removed = await loopguard(dir, ['init', agent, '--remove']);
      expect(removed.code, removed.stderr).toBe(0);
      expect(read(settingsFile(dir, agent))).toEqual(EXISTING);
      expect((await loopguard(dir, ['init', agent, '--remove'])).stdout).toContain(
        'no loopguard hooks to remove',
      );
    },
  );

  it('--dry-run prints the diff and writes nothing', async () => {
    const dir = tempProject();
    writeSettings(dir, 'claude', { model: 'opus' });
    const before = readFileSync(settingsFile(dir, 'claude'), 'utf8');
    const result = await loopguard(dir, ['init', 'claude', '--dry-run']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^--- \.claude\/settings\.json\n\+\+\+ \.claude\/settings\.json\n@@ /);
    expect(result.stdout).toContain('+    "PostToolUseFailure": [');
    expect(result.stdout).toContain('-{"model":"opus"}');
    expect(readFileSync(settingsFile(dir, 'claude'), 'utf8')).toBe(before);
    expect(readdirSync(join(dir, '.claude'))).toEqual(['settings.json']);
  });

  it('--user writes under the home directory; a missing file is created without a backup', async () => {
    const dir = tempProject();
    const home = tempProject();
    const result = await loopguard(dir, ['init', 'gemini', '--user', '--command', 'loopguard'], {
      HOME: home,
    });
    expect(result.code, result.stderr).toBe(0);
    const settings = read(join(home, '.gemini', 'settings.json'));
    expect(settings.hooks.AfterTool).toEqual([
      {
        matcher: '.*',
        hooks: [{ type: 'command', command: 'loopguard hook gemini', name: 'loopguard', timeout: 10_000 }],
      },
    ]);
    expect(readdirSync(join(home, '.gemini'))).toEqual(['settings.json']);
    expect(existsSync(join(dir, '.gemini'))).toBe(false);
  });

  it('refuses a settings file that is not JSON, an unknown agent, and a bad hook configuration, writing nothing', async () => {
    const dir = tempProject();
    mkdirSync(join(dir, '.claude'));
    writeFileSync(settingsFile(dir, 'claude'), '{ "model": ');
    const bad = await loopguard(dir, ['init', 'claude']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^loopguard: \.claude\/settings\.json is not valid JSON .*; nothing written$/);
    expect(readFileSync(settingsFile(dir, 'claude'), 'utf8')).toBe('{ "model": ');
    expect((await loopguard(dir, ['init', 'codex'])).stderr).toContain('agent must be claude or gemini');
    const other = tempProject();
    writeFileSync(join(other, 'loopguard.config.json'), JSON.stringify({ hook: { stopAfter: 0 } }));
    const config = await loopguard(other, ['init', 'claude']);
    expect(config.code).toBe(2);
    expect(config.stderr).toContain('stopAfter');
    expect(existsSync(join(other, '.claude'))).toBe(false);
  });
});

describe('hook settings merge', () => {
  it('replaces an older loopguard entry in place of adding a second, and removes only loopguard entries', () => {
    const old = addHooks(EXISTING, 'claude', "'/old/node' '/old/bin.js' hook claude", 10);
    const updated = addHooks(old, 'claude', 'loopguard hook claude', 10);
    expect(JSON.stringify(updated)).not.toContain('/old/bin.js');
    expect(removeHooks(updated, 'claude')).toEqual(EXISTING);
    // a group shared with another hook keeps the other hook
    const shared = {
      hooks: {
        Stop: [
          {
            hooks: [
              { type: 'command', command: 'echo x' },
              { type: 'command', command: 'loopguard hook claude' },
            ],
          },
        ],
      },
    };
    expect(removeHooks(shared, 'claude')).toEqual({
      hooks: { Stop: [{ hooks: [{ type: 'command', command: 'echo x' }] }] },
    });
    // gemini's entries are left alone when removing claude's
    const gemini = addHooks({}, 'gemini', 'loopguard hook gemini', 10);
    const both = addHooks(gemini, 'claude', 'loopguard hook claude', 10);
    expect(removeHooks(both, 'claude')).toEqual(gemini);
    expect(removeHooks(both, 'gemini')).toEqual(addHooks({}, 'claude', 'loopguard hook claude', 10));
  });

  it('recognises loopguard commands only', () => {
    expect(isLoopguardCommand('loopguard hook claude', 'claude')).toBe(true);
    expect(isLoopguardCommand("'/usr/bin/node' '/x/dist/bin.js' hook claude", 'claude')).toBe(true);
    expect(isLoopguardCommand('npx loopguard hook gemini ', 'gemini')).toBe(true);
    expect(isLoopguardCommand('loopguard hook gemini', 'claude')).toBe(false);
    expect(isLoopguardCommand('my-hook claude', 'claude')).toBe(false);
    expect(isLoopguardCommand(undefined, 'claude')).toBe(false);
  });

  it('lineDiff gives unified hunks with context, and nothing for equal texts', () => {
    expect(lineDiff('a\n', 'a\n', 'f')).toBe('');
    const before = 'l1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\nl9\n';
    const after = 'l1\nl2\nl3\nl4\nX\nl6\nl7\nl8\nl9\n';
    expect(lineDiff(before, after, 'f')).toBe(
      '--- f\n+++ f\n@@ -2,7 +2,7 @@\n l2\n l3\n l4\n-l5\n+X\n l6\n l7\n l8\n',
    );
  });
});
