import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../src/files/configFiles.js';
import { runCli } from '../src/main.js';
import { bufferedIo } from './helpers.js';
import { claudeEvent, hookCall, hookLog, tempProject } from './hookHelpers.js';

const SECRET = 'wJalrXUtnFEMI/K7MDENG';

/** The user's credentials, in a file of their own (INI: not YAML, not JSON). */
function credentials(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'loopguard-home-')), 'credentials');
  writeFileSync(file, `[default]\naws_access_key_id = AKIAEXAMPLE\naws_secret_access_key = ${SECRET}\n`);
  return file;
}

/** A repository whose configuration file is a link to `target` (checked in as a symbolic link). */
function repositoryLinkingTo(target: string, name = 'loopguard.config.yaml'): string {
  const project = tempProject();
  symlinkSync(target, join(project, name));
  return project;
}

describe("a configuration file's syntax error never quotes its text (trust41)", () => {
  it('names the line and the error, not the text, for YAML and JSON', () => {
    const text = `[default]\naws_secret_access_key = ${SECRET}\n`;
    for (const file of ['loopguard.config.yaml', 'loopguard.config.json']) {
      let message = '';
      try {
        parseConfigText(file, text);
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message, file).toMatch(/line \d+/);
      expect(message, file).not.toContain('aws_secret');
      expect(message, file).not.toContain(SECRET);
    }
  });

  it("keeps a repository's link to the user's credentials out of hook.log and the doors' errors", async () => {
    const project = repositoryLinkingTo(credentials());
    const event = claudeEvent(project, 's1', 'PreToolUse', {
      tool_name: 'Bash',
      tool_input: { command: 'ls' },
    });
    expect((await hookCall(project, 'claude', event)).stdout).toBe('');
    expect(hookLog(project).join('\n')).toContain('line 2');
    expect(hookLog(project).join('\n')).not.toContain(SECRET);
    for (const args of [
      ['scan', project],
      ['run', '--max-iterations', '1', '--', 'true'],
    ]) {
      const io = bufferedIo({ cwd: project, env: { NO_COLOR: '1' } });
      await runCli(args, io);
      expect(io.err(), args[0]).toContain('line 2');
      expect(`${io.out()}${io.err()}`, args[0]).not.toContain(SECRET);
    }
  });
});

describe('the inspecting commands never print a secret they were given or pointed at (trust42)', () => {
  it("keeps a repository's link to the user's credentials out of status's error", async () => {
    const netrc = join(mkdtempSync(join(tmpdir(), 'loopguard-home-')), 'netrc');
    writeFileSync(netrc, `machine github.com login me password ${SECRET}\n`);
    for (const name of ['loopguard.config.json', 'loopguard.config.yaml']) {
      const project = repositoryLinkingTo(name.endsWith('json') ? netrc : credentials(), name);
      const io = bufferedIo({ cwd: project, env: { NO_COLOR: '1' } });
      expect(await runCli(['status'], io), name).toBe(2);
      expect(io.err(), name).toMatch(/line \d+/);
      expect(io.err(), name).not.toMatch(/machine|aws_|default/);
    }
  });

  it("hides a connection string's password given in its query, as in its user part", async () => {
    const project = tempProject();
    for (const url of [
      `postgres://u@127.0.0.1:1/agents?password=${SECRET}`,
      `postgresql://127.0.0.1:1/agents?user=u&sslmode=disable&sslpassword=${SECRET}`,
    ]) {
      const io = bufferedIo({ cwd: project, env: { NO_COLOR: '1' } });
      expect(await runCli(['status', '--postgres', url, '--json'], io), url).toBe(2);
      expect(io.err(), url).toContain('cannot connect to PostgreSQL');
      expect(`${io.out()}${io.err()}`, url).not.toContain(SECRET);
      expect(`${io.out()}${io.err()}`, url).not.toContain(encodeURIComponent(SECRET));
    }
  });

  it('says that a password given in --postgres is in the process list, and where to give it instead', async () => {
    const project = tempProject();
    for (const url of [
      'postgres://u:s3cret@127.0.0.1:1/agents',
      'postgres://u@127.0.0.1:1/agents?password=x',
      'host=127.0.0.1 port=1 password=x',
    ]) {
      const io = bufferedIo({ cwd: project, env: { NO_COLOR: '1' } });
      await runCli(['status', '--postgres', url], io);
      expect(io.err(), url).toContain('every local user can read it in the process list');
      expect(io.err(), url).toContain('PGPASSWORD');
    }
    const io = bufferedIo({ cwd: project, env: { NO_COLOR: '1' } });
    await runCli(['status', '--postgres', 'postgres://u@127.0.0.1:1/agents'], io);
    expect(io.err()).not.toContain('process list');
  });

  it('a connection string node-postgres cannot read is a usage error in one line, its password unsaid', async () => {
    const io = bufferedIo({ cwd: tempProject(), env: { NO_COLOR: '1' } });
    expect(await runCli(['status', '--postgres', `postgres://u:${SECRET}@127.0.0.1:1/agents`], io)).toBe(2);
    expect(io.err()).toContain('--postgres (connection string): not a connection string');
    expect(io.err()).not.toContain(SECRET);
  });
});

describe("init never quotes a file a repository's settings or configuration link to (trust43)", () => {
  /** A token file of the user's: short, so that V8's `JSON.parse` error would quote its start. */
  function tokenFile(): string {
    const file = join(mkdtempSync(join(tmpdir(), 'loopguard-home-')), 'token');
    writeFileSync(file, `ghp_${SECRET}\n`);
    return file;
  }

  it("names the error and its line for a project's settings file that links to the user's token", async () => {
    for (const [agent, folder, name] of [
      ['claude', '.claude', 'settings.json'],
      ['gemini', '.gemini', 'settings.json'],
      ['codex', '.codex', 'hooks.json'],
    ] as const) {
      const token = tokenFile();
      const project = tempProject();
      mkdirSync(join(project, folder));
      symlinkSync(token, join(project, folder, name));
      const home = mkdtempSync(join(tmpdir(), 'loopguard-home-'));
      mkdirSync(join(home, '.codex'));
      const io = bufferedIo({
        cwd: project,
        env: { NO_COLOR: '1', HOME: home, CODEX_HOME: join(home, '.codex') },
      });
      expect(await runCli(['init', agent, '--project'], io), agent).toBe(2);
      expect(io.err(), agent).toMatch(/is not valid JSON \(.*line 1/);
      expect(`${io.out()}${io.err()}`, agent).not.toContain('ghp_');
      expect(readFileSync(token, 'utf8')).toBe(`ghp_${SECRET}\n`);
    }
  });

  it("--spend names the error and its line for a loopguard.config that links to the user's token", async () => {
    for (const name of ['loopguard.config.json', 'loopguard.config.yaml']) {
      const token = tokenFile();
      const target = name.endsWith('json') ? token : credentials();
      const project = repositoryLinkingTo(target, name);
      const home = mkdtempSync(join(tmpdir(), 'loopguard-home-'));
      const io = bufferedIo({ cwd: project, env: { NO_COLOR: '1', HOME: home } });
      expect(await runCli(['init', 'gemini', '--spend', '--dry-run'], io), name).toBe(2);
      expect(io.err(), name).toMatch(/line \d+/);
      expect(`${io.out()}${io.err()}`, name).not.toMatch(/ghp_|aws_|default/);
    }
  });
});
