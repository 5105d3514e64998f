import { chmodSync, chownSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { runCli } from '../src/main.js';
import { EXIT_CODES } from '../src/terminal/exitCodes.js';
import { bufferedIo } from './helpers.js';

// redteam68: `loopguard demo` run in a folder every user writes (`/tmp`) wrote its database and its
// `demo-files` through the `.loopguard` another user left there: a link of hers to a private folder
// of the user's got `demo.db` and `demo-files/` written into it; a folder of hers got the demo's
// database in a folder she can swap files in. The demo's `.loopguard` is refused as every other
// door's is (a link, another user's), before anything is deleted or written.
const root = mkdtempSync(join(tmpdir(), 'loopguard-demo-planted-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

/** A folder every user writes, as `/tmp` is. */
function shared(name: string): string {
  const dir = join(root, name);
  mkdirSync(dir);
  chmodSync(dir, 0o1777);
  return dir;
}

async function demo(cwd: string) {
  const io = bufferedIo({ cwd });
  const code = await runCli(['demo'], io);
  return { code, out: io.out(), err: io.err() };
}

describe("loopguard demo in another user's .loopguard (redteam68)", () => {
  it('refuses a .loopguard that is a link, writing nothing through it', async () => {
    const dir = shared('linked');
    const privateFolder = join(root, 'private');
    mkdirSync(privateFolder, { mode: 0o700 });
    symlinkSync(privateFolder, join(dir, '.loopguard'));
    const result = await demo(dir);
    expect(result.code).toBe(EXIT_CODES.internalError);
    expect(result.err).toBe(
      `loopguard: refusing ${join(dir, '.loopguard')}: it is a symbolic link (to ${privateFolder}); loopguard keeps its state only in a folder of this user's (remove it)\n`,
    );
    expect(result.out).toBe('');
    expect(readdirSync(privateFolder)).toEqual([]);
  });

  it("refuses another user's .loopguard, writing nothing in it", async () => {
    const dir = shared('hers');
    const hers = join(dir, '.loopguard');
    mkdirSync(hers);
    chmodSync(hers, 0o777);
    // as root the folder is given to an id of no user here; else this process poses as another user
    if (process.getuid?.() === 0) chownSync(hers, 4242, 4242);
    else vi.spyOn(process, 'getuid').mockReturnValue((process.getuid?.() ?? 0) + 4242);
    const result = await demo(dir);
    expect(result.code).toBe(EXIT_CODES.internalError);
    expect(result.err).toMatch(/^loopguard: refusing .*\.loopguard: it belongs to another user \(uid \d+\)/);
    expect(result.err.trim().split('\n')).toHaveLength(1);
    expect(readdirSync(hers)).toEqual([]);
  });
});
