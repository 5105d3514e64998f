import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { projectHooksConfigured } from '../src/commands/projectHooksOff.js';
import { findConfigFile } from '../src/files/configFiles.js';
import { readHookConfig } from '../src/hook/hookConfig.js';

// trust52: in a folder every user can write (`/tmp`), another user could leave a
// `loopguard.config.json` that switched loopguard off for a session started there, or named a
// PostgreSQL server of hers for `status` (which node-postgres sends the user's PGPASSWORD).
const root = realpathSync(mkdtempSync(join(tmpdir(), 'loopguard-planted-')));
afterAll(() => rmSync(root, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

/** A folder of `mode` holding a configuration that switches the hooks off (made by this process's user). */
function folder(name: string, mode: number): string {
  const dir = join(root, name);
  mkdirSync(dir);
  writeFileSync(join(dir, 'loopguard.config.json'), JSON.stringify({ hook: { enabled: false } }));
  chmodSync(dir, mode);
  return dir;
}

/** Runs `read` as another user than the file's owner. */
function asAnotherUser<T>(read: () => T): T {
  vi.spyOn(process, 'getuid').mockReturnValue((process.getuid?.() ?? 0) + 4242);
  return read();
}

describe("another user's configuration file in a folder every user writes (trust52)", () => {
  it('is passed over: the defaults apply, and the hooks guard', async () => {
    const shared = folder('shared', 0o1777);
    expect(asAnotherUser(() => findConfigFile(shared))).toBeUndefined();
    expect((await asAnotherUser(() => readHookConfig(shared))).enabled).toBe(true);
  });

  it("is read where it is the user's own, or in a folder only its owners write (a teammate's)", () => {
    const shared = folder('own', 0o1777);
    expect(findConfigFile(shared)).toBe(join(shared, 'loopguard.config.json'));
    const team = folder('team', 0o775);
    expect(asAnotherUser(() => findConfigFile(team))).toBe(join(team, 'loopguard.config.json'));
  });

  it('is named, with why it is not read, where status and the dashboard say the settings (trust53)', () => {
    const shared = folder('said', 0o1777);
    const words = asAnotherUser(() => projectHooksConfigured(join(shared, '.loopguard', 'state.db')));
    expect(words).toBe(
      `${join(shared, 'loopguard.config.json')} is not read: it is another user's file in a folder every user can write, so it may have been planted there; the defaults apply`,
    );
    vi.restoreAllMocks();
    // the user's own file there is read (it switches the hooks off: said by another line)
    expect(projectHooksConfigured(join(shared, '.loopguard', 'state.db'))).toBeUndefined();
  });
});
