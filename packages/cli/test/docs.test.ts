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

  it.each(['run', 'scan', 'status', 'statusline', 'init', 'recoveries', 'uninstall'])(
    '`loopguard %s --help` speaks of tool calls, not steps or the seed',
    async (command) => {
      const io = bufferedIo();
      await runCli([command, '--help'], io);
      expect(io.out()).not.toMatch(/\bsteps?\b|step-level|\bseed\b/i);
    },
  );

  it('documents every exit code', async () => {
    const { EXIT_CODES } = await import('../src/exitCodes.js');
    for (const code of Object.values(EXIT_CODES)) expect(docs).toMatch(new RegExp(`^\\| ${code} \\|`, 'm'));
  });
});
