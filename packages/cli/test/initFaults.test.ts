import * as fs from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { initHooks } from '../src/commands/init.js';
import type { InitOptions } from '../src/commands/initOptions.js';
import { installsFile } from '../src/install/installRecord.js';
import { tempProject } from './hookHelpers.js';

/** The file whose rename (the last step of an atomic write) fails, and the mode of every temporary file when made. */
const faults = vi.hoisted(() => ({
  failRenameTo: undefined as string | undefined,
  madeModes: [] as number[],
  /** Run when a temporary file is made: another program writing the file meanwhile. */
  onTemporary: undefined as ((path: string) => void) | undefined,
}));

vi.mock('node:fs', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs')>();
  const isTemporary = (path: unknown) => typeof path === 'string' && /\.loopguard-\d+\.tmp$/.test(path);
  const seen = (path: unknown) => {
    if (isTemporary(path)) faults.madeModes.push(actual.statSync(path as string).mode & 0o777);
  };
  return {
    ...actual,
    openSync: ((path: fs.PathLike, ...rest: never[]) => {
      const fd = (actual.openSync as (...args: unknown[]) => number)(path, ...rest);
      seen(path);
      if (isTemporary(path)) faults.onTemporary?.(path as string);
      return fd;
    }) as typeof fs.openSync,
    writeFileSync: ((path: fs.PathOrFileDescriptor, ...rest: never[]) => {
      (actual.writeFileSync as (...args: unknown[]) => void)(path, ...rest);
      seen(path);
    }) as typeof fs.writeFileSync,
    renameSync: ((from: fs.PathLike, to: fs.PathLike) => {
      if (to === faults.failRenameTo) {
        throw Object.assign(new Error(`EIO: i/o error, rename '${String(from)}' -> '${String(to)}'`), {
          code: 'EIO',
        });
      }
      actual.renameSync(from, to);
    }) as typeof fs.renameSync,
  };
});

afterEach(() => {
  faults.onTemporary = undefined;
  faults.failRenameTo = undefined;
  faults.madeModes = [];
});

const CONFIG = '{\n  "numStartups": 3,\n  "primaryApiKey": "sk-ant-not-a-real-key"\n}\n';

/** A user whose `~/.claude.json` is `CONFIG` (mode 0600), a project, and `init` run in it in this process. */
function setUp() {
  const home = tempProject();
  const dir = tempProject();
  const config = join(home, '.claude.json');
  fs.writeFileSync(config, CONFIG, { mode: 0o600 });
  const out: string[] = [];
  const init = (options: Partial<InitOptions> = {}) =>
    initHooks(
      'claude',
      { timeout: '10', ...options },
      {
        stdout: (text) => out.push(text),
        stderr: (text) => out.push(text),
        env: { HOME: home },
        cwd: dir,
        isTTY: false,
      },
    );
  return { home, dir, config, init, out, settings: join(dir, '.claude', 'settings.json') };
}

/** The files of a folder other than init's backups. */
const filesOf = (dir: string) =>
  fs.existsSync(dir) ? fs.readdirSync(dir).filter((name) => !name.includes('.loopguard-backup-')) : [];

describe('init writes the MCP server and the hook that refuses its call both or neither (issue 38)', () => {
  it('a failed settings write leaves ~/.claude.json as it was, and records nothing', async () => {
    const { home, dir, config, init, settings } = setUp();
    faults.failRenameTo = settings;
    await expect(init()).rejects.toThrow(
      /^cannot write \.claude\/settings\.json \(i\/o error, EIO\); nothing written$/,
    );
    expect(fs.readFileSync(config, 'utf8')).toBe(CONFIG);
    expect(fs.existsSync(installsFile(home))).toBe(false);
    expect(filesOf(dir)).toEqual([]);
  });

  it('a failed write of ~/.claude.json puts the settings file back as it was', async () => {
    const { home, config, init, settings } = setUp();
    fs.mkdirSync(join(settings, '..'));
    fs.writeFileSync(settings, '{"model": "opus"}\n');
    faults.failRenameTo = config;
    await expect(init()).rejects.toThrow(
      /cannot write .*\.claude\.json \(i\/o error, EIO\); nothing written$/,
    );
    expect(fs.readFileSync(settings, 'utf8')).toBe('{"model": "opus"}\n');
    expect(fs.readFileSync(config, 'utf8')).toBe(CONFIG);
    expect(fs.existsSync(installsFile(home))).toBe(false);
  });

  it("--replace: a failed write of ~/.claude.json puts back the other scope's settings file it took away", async () => {
    const { home, dir, config, init } = setUp();
    await init({ user: true });
    const userSettings = join(home, '.claude', 'settings.json');
    const user = fs.readFileSync(userSettings, 'utf8');
    const installed = fs.readFileSync(config, 'utf8');
    faults.failRenameTo = config;
    await expect(init({ replace: true })).rejects.toThrow(/cannot write .*\.claude\.json/);
    expect(fs.readFileSync(userSettings, 'utf8')).toBe(user);
    expect(fs.readFileSync(config, 'utf8')).toBe(installed);
    expect(filesOf(dir)).toEqual([]);
  });

  it('--remove takes the server out first: a failed settings write puts it back', async () => {
    const { config, init, settings } = setUp();
    await init();
    const installed = fs.readFileSync(config, 'utf8');
    const hooks = fs.readFileSync(settings, 'utf8');
    faults.failRenameTo = settings;
    fs.writeFileSync(settings, `${hooks.trimEnd()}\n`.replace('{', '{\n  "model": "opus",'));
    const before = fs.readFileSync(settings, 'utf8');
    await expect(init({ remove: true })).rejects.toThrow(/cannot write \.claude\/settings\.json/);
    expect(fs.readFileSync(config, 'utf8')).toBe(installed);
    expect(fs.readFileSync(settings, 'utf8')).toBe(before);
  });
});

describe("init's temporary files are created with the final mode (issue 38)", () => {
  it('the temporary file of a 0600 ~/.claude.json is never readable by others', async () => {
    const { config, init } = setUp();
    await init();
    expect(fs.statSync(config).mode & 0o777).toBe(0o600);
    expect(fs.readFileSync(config, 'utf8')).toContain('"primaryApiKey"');
    // one temporary file for the settings file (new: 0666 less the umask), one for ~/.claude.json
    expect(faults.madeModes).toHaveLength(2);
    expect(faults.madeModes[1]).toBe(0o600);
  });

  it('a new ~/.claude.json is made 0600', async () => {
    const { config, init } = setUp();
    fs.rmSync(config);
    await init();
    expect(fs.statSync(config).mode & 0o777).toBe(0o600);
  });
});

describe('init never loses what another program wrote to a file while init edited it (trust43)', () => {
  it("Claude Code writing ~/.claude.json meanwhile: init refuses, puts back what it wrote, and keeps Claude Code's text", async () => {
    const { home, config, init, settings } = setUp();
    const claudeCode = CONFIG.replace('"numStartups": 3', '"numStartups": 4');
    faults.onTemporary = (path) => {
      if (path.startsWith(`${config}.`)) fs.writeFileSync(config, claudeCode);
    };
    await expect(init()).rejects.toThrow(
      /\.claude\.json \(it changed while init edited it: run init again\); nothing written$/,
    );
    expect(fs.readFileSync(config, 'utf8')).toBe(claudeCode);
    expect(fs.existsSync(settings)).toBe(false);
    expect(fs.existsSync(installsFile(home))).toBe(false);
    faults.onTemporary = undefined;
    await init();
    expect(JSON.parse(fs.readFileSync(config, 'utf8')).numStartups).toBe(4);
  });
});
