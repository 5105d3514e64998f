import { mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../src/configFiles.js';
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
