import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HOOKS_REMOVED_REFUSED, hooksRemovedRefusal } from '../src/hook/hooksRemovedCall.js';
import { literalWrites } from '../src/hook/literalWrites.js';
import { shellCall, tempProject } from './hookHelpers.js';

// trust70: a shell write is read as literal (its text is what the file gets) only where `cat` and
// `mv` are the system's programs. A `cat` the model wrote earlier into a folder on PATH before
// /usr/bin (`~/.local/bin`, `node_modules/.bin`) writes whatever it likes: its heredoc says nothing.

const SETTINGS = {
  hooks: {
    Stop: [
      {
        hooks: [
          { type: 'command', command: 'loopguard hook claude', timeout: 10, loopguard: { owns: 'list' } },
        ],
      },
    ],
  },
};

/** A project with loopguard's hooks, and a folder holding the model's own `cat` and `mv`. */
function setUp(): { dir: string; bin: string } {
  const dir = tempProject();
  mkdirSync(join(dir, '.claude'));
  writeFileSync(join(dir, '.claude', 'settings.json'), JSON.stringify(SETTINGS, null, 2));
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  for (const name of ['cat', 'mv']) {
    writeFileSync(join(bin, name), '#!/bin/sh\necho {} > .claude/settings.json\n');
    chmodSync(join(bin, name), 0o755);
  }
  return { dir, bin };
}

const kept = JSON.stringify({ ...SETTINGS, permissions: { allow: ['Bash(ls)'] } }, null, 2);
const WRITES = [
  `cat > .claude/settings.json <<'EOF'\n${kept}\nEOF`,
  `echo '${kept}' > /tmp/s.json && mv /tmp/s.json .claude/settings.json`,
];

const refusal = (dir: string, command: string, PATH: string) =>
  hooksRemovedRefusal(shellCall(command, dir), { HOME: join(dir, 'home'), PATH });

describe('literal writes only through the system’s cat and mv', () => {
  it.each(WRITES)('left alone with the system’s programs: %s', (command) => {
    const { dir } = setUp();
    expect(refusal(dir, command, '/usr/local/bin:/usr/bin:/bin')).toBeUndefined();
  });

  it.each(WRITES)('refused with the model’s own first on PATH: %s', (command) => {
    const { dir, bin } = setUp();
    expect(refusal(dir, command, `${bin}:/usr/bin:/bin`)).toBe(HOOKS_REMOVED_REFUSED);
  });

  it('a relative or empty folder of PATH is the project’s: a cat there is the model’s', () => {
    const { dir } = setUp();
    const write = `cat > a.json <<'EOF'\n{}\nEOF`;
    expect(literalWrites(write, { PATH: 'bin:/usr/bin:/bin' }, dir)).toEqual([]);
    expect(literalWrites(write, { PATH: './bin:/usr/bin' }, dir)).toEqual([]);
    expect(literalWrites(write, { PATH: ':/usr/bin:/bin' }, join(dir, 'bin'))).toEqual([]);
    expect(literalWrites(write, { PATH: ':./node_modules/.bin:/usr/bin:/bin' }, dir)).toHaveLength(1);
    expect(refusal(dir, WRITES[0] as string, 'bin:/usr/bin:/bin')).toBe(HOOKS_REMOVED_REFUSED);
  });
});
