import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { claudeProjectsDir, isSessionTranscript } from '../src/mcp/sessionTranscript.js';
import { tempProject } from './hookHelpers.js';

describe("the session's transcript in Claude Code's folder (what the MCP server reads)", () => {
  const home = { HOME: '/home/u' };

  it("is <config dir>/projects/<the project's folder>/<session_id>.jsonl, CLAUDE_CONFIG_DIR honoured", () => {
    expect(claudeProjectsDir(home)).toBe('/home/u/.claude/projects');
    expect(claudeProjectsDir({ ...home, CLAUDE_CONFIG_DIR: '/cfg/' })).toBe('/cfg/projects');
    // a relative (or empty) CLAUDE_CONFIG_DIR is Claude Code's from where it started: no folder
    // is known, so no transcript is trusted, the home's neither
    for (const config of ['cfg', '', '  ']) {
      expect(claudeProjectsDir({ ...home, CLAUDE_CONFIG_DIR: config })).toBeUndefined();
      const env = { ...home, CLAUDE_CONFIG_DIR: config };
      expect(isSessionTranscript('/home/u/.claude/projects/-work-a/s1.jsonl', 's1', '/work/a', env)).toBe(
        false,
      );
    }
    const path = '/home/u/.claude/projects/-work-my-app-v2/s1.jsonl';
    expect(isSessionTranscript(path, 's1', '/work/my_app.v2', home)).toBe(true);
    expect(isSessionTranscript(path, 's2', '/work/my_app.v2', home)).toBe(false);
    expect(isSessionTranscript(path, 's1', '/work/other', home)).toBe(false);
    expect(isSessionTranscript(path, 's1', '/work/my_app.v2', { HOME: '/home/v' })).toBe(false);
    expect(
      isSessionTranscript('/cfg/projects/-work-a/s1.jsonl', 's1', '/work/a', {
        ...home,
        CLAUDE_CONFIG_DIR: '/cfg',
      }),
    ).toBe(true);
  });

  it('refuses a path written with .., a doubled separator, a subfolder, or relative', () => {
    const project = '/work/a';
    for (const path of [
      '/home/u/.claude/projects/-work-a/../-work-a/s1.jsonl',
      '/home/u/.claude/projects//-work-a/s1.jsonl',
      '/home/u/.claude/projects/-work-a/s1/subagents/s1.jsonl',
      'home/u/.claude/projects/-work-a/s1.jsonl',
    ])
      expect(isSessionTranscript(path, 's1', project, home), path).toBe(false);
    // a session id that is a path of its own
    expect(isSessionTranscript('/home/u/.claude/projects/-work-a/x/s1.jsonl', 'x/s1', project, home)).toBe(
      false,
    );
  });

  it('names a long project path by its first 200 characters and a hash, and a linked one by either path', () => {
    const long = `/work/${'d'.repeat(250)}`;
    const folder = `${long.replace(/[^a-zA-Z0-9]/g, '-').slice(0, 200)}-1x2y3z`;
    expect(isSessionTranscript(`/home/u/.claude/projects/${folder}/s1.jsonl`, 's1', long, home)).toBe(true);
    expect(
      isSessionTranscript(`/home/u/.claude/projects/${folder.slice(0, 199)}/s1.jsonl`, 's1', long, home),
    ).toBe(false);
    const real = tempProject();
    mkdirSync(join(real, 'app'));
    symlinkSync(join(real, 'app'), join(real, 'link'));
    const named = (dir: string) => `/home/u/.claude/projects/${dir.replace(/[^a-zA-Z0-9]/g, '-')}/s1.jsonl`;
    expect(isSessionTranscript(named(join(real, 'app')), 's1', join(real, 'link'), home)).toBe(true);
    expect(isSessionTranscript(named(join(real, 'link')), 's1', join(real, 'link'), home)).toBe(true);
  });
});
