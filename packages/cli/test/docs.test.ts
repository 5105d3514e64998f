import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli } from '../src/main.js';
import { bufferedIo } from './helpers.js';

const docs = readFileSync(new URL('../../../docs/cli.md', import.meta.url), 'utf8');
const squash = (text: string) => text.replace(/\s+/g, ' ').trim();

describe('docs/cli.md', () => {
  it.each(['run', 'resume', 'reset', 'runs', 'scan'])('matches `loopguard %s --help`', async (command) => {
    const io = bufferedIo();
    await runCli([command, '--help'], io);
    const help = io.out();
    const flags = [...help.matchAll(/^ {2}(?:-\w, )?(--[a-z][a-z-]+)/gm)].map((m) => m[1]);
    for (const flag of flags.filter((f) => f !== '--help')) expect(docs).toContain(`\`${flag}`);
    expect(docs).toContain(`## \`loopguard ${command}`);
    if (command === 'run') expect(squash(docs)).toContain(squash(help));
  });

  /** The text of the `## ` section whose title starts with `title`. */
  const section = (title: string) => {
    const start = docs.indexOf(`\n## ${title}`);
    expect(start).toBeGreaterThan(-1);
    const end = docs.indexOf('\n## ', start + 1);
    return docs.slice(start, end === -1 ? undefined : end);
  };
  const inspecting = 'Inspecting loop state';
  const initSection = '`loopguard init';
  it.each([
    ['init', initSection],
    ['uninstall', initSection],
    ['hook', initSection],
    ['mcp', initSection],
    ['demo', inspecting],
    ['serve', inspecting],
    ['status', inspecting],
    ['recoveries', inspecting],
    ['statusline', inspecting],
  ])('names every flag of `loopguard %s --help` in "%s"', async (command, title) => {
    const io = bufferedIo();
    await runCli([command, '--help'], io);
    const text = section(title);
    const flags = [...io.out().matchAll(/^ {2}(?:-\w, )?(--[a-z][a-z-]+)/gm)].map((m) => m[1]);
    // in the command's synopsis (`[--limit 100]`) or its prose (`--limit`)
    for (const flag of flags.filter((f) => f !== '--help'))
      expect(text).toMatch(new RegExp(`[\`[]${flag}\\b`));
    expect(text).toContain(`loopguard ${command}`);
  });

  it.each(['run', 'scan', 'status', 'statusline', 'init', 'recoveries', 'uninstall'])(
    '`loopguard %s --help` speaks of tool calls, not steps or the seed',
    async (command) => {
      const io = bufferedIo();
      await runCli([command, '--help'], io);
      expect(io.out()).not.toMatch(/\bsteps?\b|step-level|\bseed\b/i);
    },
  );

  it.each(['run', 'demo', 'serve', 'status', 'recoveries', 'init', 'scan'])(
    '`loopguard %s --help` states a number default as a number, not a quoted string',
    async (command) => {
      const io = bufferedIo();
      await runCli([command, '--help'], io);
      expect(io.out()).not.toMatch(/default: "\d+"/);
    },
  );

  it('documents every exit code, and no other', async () => {
    const { EXIT_CODES } = await import('../src/terminal/exitCodes.js');
    const table = section('Exit codes');
    const documented = [...table.matchAll(/^\| (\d+) \|/gm)].map((m) => Number(m[1]));
    expect(documented).toEqual(Object.values(EXIT_CODES));
  });

  it('lists every event `loopguard run --json` prints, and no other', async () => {
    const { RUN_EVENTS } = await import('../src/run/RunDisplay.js');
    const from = docs.indexOf('With `--json`, stdout carries one JSON object per line:');
    const to = docs.indexOf('Each has `event` and `at`', from);
    expect(from).toBeGreaterThan(-1);
    const listed = [...docs.slice(from, to).matchAll(/`([a-z]+(?:_[a-z]+)*)`/g)].map((m) => m[1]);
    expect(listed).toEqual([...RUN_EVENTS]);
  });
});
