import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { toldFolder } from '../src/hook/unguardedNotice.js';
import { scanCacheFile } from '../src/scan/scanCache.js';
import { EXIT_CODES } from '../src/terminal/exitCodes.js';
import { loopguard } from './runHelpers.js';

// trust54: loopguard's own files under the user's home (the install record, the scan cache, the
// notice marks, the home's database) were placed by four rules: `init` took the OS's home when HOME
// was unset, `uninstall` the empty path (the working directory), `scan` and the hook nowhere. One
// rule now: HOME; unset or empty, the account's (Node's os.homedir()); relative, no folder at all.

describe("loopguard's own home folder, one rule in every place (trust54)", () => {
  const account = userInfo().homedir;

  it('HOME unset or empty is the account home, as init takes it', () => {
    for (const env of [{}, { HOME: '' }]) {
      expect(scanCacheFile(env)).toBe(join(account, '.cache', 'loopguard', 'scan-cache'));
      expect(toldFolder(env)).toBe(join(account, '.local', 'state', 'loopguard', 'unguarded-told'));
    }
    expect(scanCacheFile({ HOME: 'rel' })).toBeUndefined();
    expect(toldFolder({ HOME: 'rel' })).toBeUndefined();
  });

  /** A project with loopguard's Gemini CLI hooks, installed under a scratch home. */
  async function installedProject(): Promise<string> {
    const project = realpathSync(mkdtempSync(join(tmpdir(), 'loopguard-homeproj-')));
    const home = realpathSync(mkdtempSync(join(tmpdir(), 'loopguard-homehome-')));
    const init = await loopguard(project, ['init', 'gemini'], { HOME: home });
    expect(init.code, init.stderr).toBe(0);
    return project;
  }

  it("uninstall with a relative HOME reads no install record from the working directory (a repository's)", async () => {
    const victim = await installedProject();
    const before = readFileSync(join(victim, '.gemini', 'settings.json'), 'utf8');
    expect(before).toContain('loopguard');
    const clone = realpathSync(mkdtempSync(join(tmpdir(), 'loopguard-clone-')));
    mkdirSync(join(clone, '.loopguard'));
    writeFileSync(
      join(clone, '.loopguard', 'installs.json'),
      JSON.stringify([{ agent: 'gemini', project: victim }]),
    );
    const result = await loopguard(clone, ['uninstall'], { HOME: '.' });
    expect(result.code).toBe(EXIT_CODES.usage);
    expect(result.stderr.trim().split('\n')).toEqual([
      `loopguard: HOME is not an absolute path ("."), so there is no folder for loopguard's own files (~/.loopguard); set HOME to a directory`,
    ]);
    expect(readFileSync(join(victim, '.gemini', 'settings.json'), 'utf8')).toBe(before);
  });

  it('init with a relative HOME writes no install record into the project', async () => {
    const project = realpathSync(mkdtempSync(join(tmpdir(), 'loopguard-relhome-')));
    const result = await loopguard(project, ['init', 'gemini'], { HOME: '.' });
    expect(result.code).toBe(EXIT_CODES.usage);
    expect(result.stderr).toContain('HOME is not an absolute path (".")');
    expect(existsSync(join(project, '.loopguard', 'installs.json'))).toBe(false);
    expect(existsSync(join(project, '.gemini', 'settings.json'))).toBe(false);
  });
});
