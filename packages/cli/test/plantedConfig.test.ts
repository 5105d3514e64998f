import {
  chmodSync,
  chownSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { projectHooksConfigured } from '../src/commands/projectHooksOff.js';
import { findConfigFile } from '../src/files/configFiles.js';
import { readHookConfig } from '../src/hook/hookConfig.js';

// trust52: in a folder every user can write (`/tmp`), another user could leave a
// `loopguard.config.json` that switched loopguard off for a session started there, or named a
// PostgreSQL server of hers for `status` (which node-postgres sends the user's PGPASSWORD).
// trust62: so could she in a folder her group writes, or her own: another user's file is passed
// over wherever it is, as git passes over a repository another user owns.
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

/** An id of no user here, as the owner of another user's file. */
const OTHER = 4242;

/**
 * Runs `read` as another user than the owner of `paths` (made by this process): as root, the
 * files are given to {@link OTHER} (root's own files are trusted: root can write any file);
 * else this process poses as another user.
 */
function asAnotherUser<T>(read: () => T, ...paths: string[]): T {
  if (process.getuid?.() === 0) for (const path of paths) chownSync(path, OTHER, OTHER);
  else vi.spyOn(process, 'getuid').mockReturnValue((process.getuid?.() ?? 0) + OTHER);
  return read();
}

const config = (dir: string) => join(dir, 'loopguard.config.json');

describe("another user's configuration file (trust52, trust62)", () => {
  it('in a folder every user writes, is passed over: the defaults apply, and the hooks guard', async () => {
    const shared = folder('shared', 0o1777);
    expect(asAnotherUser(() => findConfigFile(shared), config(shared))).toBeUndefined();
    expect((await asAnotherUser(() => readHookConfig(shared))).enabled).toBe(true);
  });

  it('in a folder her group writes, or one she owns, is passed over too (trust62)', () => {
    const team = folder('team', 0o2775);
    expect(asAnotherUser(() => findConfigFile(team), config(team))).toBeUndefined();
    vi.restoreAllMocks();
    const hers = folder('hers', 0o755);
    expect(asAnotherUser(() => findConfigFile(hers), config(hers), hers)).toBeUndefined();
  });

  it("a link of the user's own to another user's file is passed over; a file every user can write too (trust62)", () => {
    const target = join(folder('target', 0o755), 'loopguard.config.json');
    const linked = join(root, 'linked');
    mkdirSync(linked);
    symlinkSync(target, config(linked));
    expect(findConfigFile(linked)).toBe(config(linked));
    expect(asAnotherUser(() => findConfigFile(linked), target)).toBeUndefined();
    vi.restoreAllMocks();
    const open = folder('open', 0o755);
    chmodSync(config(open), 0o666);
    expect(findConfigFile(open)).toBeUndefined();
  });

  it("the user's own file is read, wherever it is", () => {
    for (const [name, mode] of [
      ['own-shared', 0o1777],
      ['own-team', 0o2775],
      ['own', 0o700],
    ] as const) {
      const dir = folder(name, mode);
      expect(findConfigFile(dir), name).toBe(config(dir));
    }
  });

  it('is named, with why it is not read, where status and the dashboard say the settings (trust53)', () => {
    const shared = folder('said', 0o1777);
    const words = asAnotherUser(
      () => projectHooksConfigured(join(shared, '.loopguard', 'state.db')),
      config(shared),
    );
    expect(words).toBe(
      `${config(shared)} is not read: it is not yours alone to write (another user's file, or one every user can write), so another user could speak for loopguard through it; the defaults apply`,
    );
  });

  it("the user's own file there is read (it switches the hooks off: said by another line)", () => {
    const shared = folder('said-own', 0o1777);
    expect(projectHooksConfigured(join(shared, '.loopguard', 'state.db'))).toBeUndefined();
  });
});
