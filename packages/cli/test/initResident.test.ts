import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readResidentConfig } from '../src/resident/residentConfig.js';
import { tempProject } from './hookHelpers.js';
import { loopguard } from './runHelpers.js';

const userSettings = (home: string) => join(home, '.claude', 'settings.json');

describe('loopguard init claude --resident', () => {
  it("installs http hooks to the user's resident process, and the SessionStart command that starts it", async () => {
    const home = mkdtempSync(join(tmpdir(), 'loopguard-init-home-'));
    const project = tempProject();
    const init = await loopguard(project, ['init', 'claude', '--resident', '--timeout', '7'], { HOME: home });
    expect(init.code, init.stderr).toBe(0);
    const config = readResidentConfig(home);
    expect(config).toBeDefined();
    expect(init.stdout).toContain(`through the resident process on 127.0.0.1:${config?.port}`);
    expect(existsSync(join(project, '.claude'))).toBe(false);
    const { hooks } = JSON.parse(readFileSync(userSettings(home), 'utf8'));
    const http = {
      type: 'http',
      url: `http://127.0.0.1:${config?.port}/hook/claude`,
      headers: { Authorization: `Bearer ${config?.token}` },
      timeout: 7,
    };
    for (const event of ['PreToolUse', 'PostToolUse', 'PostToolUseFailure'])
      expect(hooks[event]).toEqual([{ matcher: '*', hooks: [{ ...http, loopguard: expect.any(Object) }] }]);
    for (const event of ['Stop', 'SessionEnd'])
      expect(hooks[event]).toEqual([{ hooks: [{ ...http, loopguard: expect.any(Object) }] }]);
    expect(hooks.SessionStart[0].hooks[0]).toMatchObject({
      type: 'command',
      command: expect.stringMatching(/ resident start$/),
      timeout: 7,
    });
    // the token is in the file: readable by the user only
    expect(statSync(userSettings(home)).mode & 0o777).toBe(0o600);

    const again = await loopguard(project, ['init', 'claude', '--resident', '--timeout', '7'], {
      HOME: home,
    });
    expect(again.stdout).toContain('loopguard hooks already installed');
    // back to command hooks: the resident entries go
    const command = await loopguard(project, ['init', 'claude', '--user'], { HOME: home });
    expect(command.code, command.stderr).toBe(0);
    const switched = JSON.parse(readFileSync(userSettings(home), 'utf8')).hooks;
    expect(Object.keys(switched).sort()).toEqual(['PostToolUse', 'PostToolUseFailure', 'PreToolUse', 'Stop']);
    expect(JSON.stringify(switched)).not.toContain('"http"');
    const removed = await loopguard(project, ['init', 'claude', '--user', '--remove'], { HOME: home });
    expect(removed.code, removed.stderr).toBe(0);
    expect(JSON.parse(readFileSync(userSettings(home), 'utf8'))).toEqual({});
  });

  it('--resident --dry-run writes nothing, not even the configuration; --remove takes the resident entries out', async () => {
    const home = mkdtempSync(join(tmpdir(), 'loopguard-init-home-'));
    const project = tempProject();
    const dry = await loopguard(project, ['init', 'claude', '--resident', '--dry-run'], { HOME: home });
    expect(dry.stdout).toContain('/hook/claude');
    expect(existsSync(join(home, '.loopguard'))).toBe(false);
    expect(existsSync(userSettings(home))).toBe(false);
    await loopguard(project, ['init', 'claude', '--resident'], { HOME: home });
    const removed = await loopguard(project, ['init', 'claude', '--resident', '--remove'], { HOME: home });
    expect(removed.stdout).toContain("removed loopguard's Claude Code hooks");
    expect(readFileSync(userSettings(home), 'utf8')).not.toContain('loopguard');
  });

  it('refuses --resident for Gemini CLI and with --project, writing nothing', async () => {
    const home = mkdtempSync(join(tmpdir(), 'loopguard-init-home-'));
    const project = tempProject();
    const gemini = await loopguard(project, ['init', 'gemini', '--resident'], { HOME: home });
    expect(gemini).toMatchObject({
      code: 2,
      stderr: 'loopguard: --resident is for claude: Gemini CLI runs only command hooks',
    });
    const projectFile = await loopguard(project, ['init', 'claude', '--resident', '--project'], {
      HOME: home,
    });
    expect(projectFile.code).toBe(2);
    expect(projectFile.stderr).toContain("--resident installs in the user's settings file");
    expect(existsSync(join(home, '.loopguard'))).toBe(false);
    expect(existsSync(join(home, '.claude'))).toBe(false);
  });
});
