import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

// The installed loopguard runs in the agents' permission path (its hook, its MCP server): a folder
// of it that another local user can change is code of theirs run as this user (trust43).

const root = fileURLToPath(new URL('..', import.meta.url));
const tmp = mkdtempSync(join(tmpdir(), 'loopguard-install-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** A prefix whose `lib/loopguard` another user made first, open to everyone, with a `bin.js` in it. */
function plantedPrefix(): { prefix: string; ran: string } {
  const prefix = mkdtempSync(join(tmp, 'prefix-'));
  const app = join(prefix, 'lib', 'loopguard');
  const dist = join(app, 'node_modules', '@loopguard', 'cli', 'dist');
  mkdirSync(dist, { recursive: true });
  const ran = join(prefix, 'ran');
  writeFileSync(join(dist, 'bin.js'), `require('node:fs').writeFileSync(${JSON.stringify(ran)}, 'x');\n`);
  chmodSync(app, 0o777);
  return { prefix, ran };
}

function install(prefix: string, ...args: string[]) {
  return spawnSync('bash', [join(root, 'scripts', 'install.sh'), ...args], {
    encoding: 'utf8',
    env: { ...process.env, LOOPGUARD_PREFIX: prefix, HOME: mkdtempSync(join(tmp, 'home-')) },
    timeout: 60_000,
  });
}

describe('install.sh refuses a folder another user can change (trust43)', () => {
  it('--uninstall runs no loopguard from a folder others can write, and removes nothing', () => {
    const { prefix, ran } = plantedPrefix();
    const result = install(prefix, '--uninstall');
    expect(result.status, result.stderr).toBe(2);
    expect(result.stderr).toMatch(/^loopguard: refusing .*lib\/loopguard: other users can change it/);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(existsSync(ran)).toBe(false);
    expect(readdirSync(join(prefix, 'lib', 'loopguard'))).toEqual(['node_modules']);
  });

  it('installs nothing into it, before building anything', () => {
    const { prefix } = plantedPrefix();
    const result = install(prefix);
    expect(result.status, result.stderr).toBe(2);
    expect(result.stderr).toMatch(/^loopguard: refusing .*lib\/loopguard: other users can change it/);
    expect(result.stdout).toBe('');
    expect(existsSync(join(prefix, 'bin', 'loopguard'))).toBe(false);
  });
});

describe('install.sh --uninstall where nothing is installed (qa66)', () => {
  it('says so, and never that it removed what was not there', () => {
    const prefix = mkdtempSync(join(tmp, 'prefix-empty-'));
    const result = install(prefix, '--uninstall');
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).not.toContain('removed');
    expect(result.stdout).toContain(`loopguard: nothing to remove in ${prefix}`);
  });
});
