import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_EXEMPT_COMMANDS } from '@loopguard/core/steps';
import { describe, expect, it } from 'vitest';
import { checkedHookConfig } from '../src/hook/checkedHookConfig.js';
import { DEFAULT_HOOK_CONFIG, readHookConfig } from '../src/hook/hookConfig.js';
import { runCli } from '../src/main.js';
import { bufferedIo } from './helpers.js';

/** `loopguard <args>` in `dir` (its HOME too, unless `home`): the exit code and stderr. */
async function runCliIn(dir: string, args: string[], home = dir): Promise<{ code: number; err: string }> {
  const io = bufferedIo({ cwd: dir, env: { NO_COLOR: '1', HOME: home } });
  const code = await runCli(args, io);
  return { code, err: io.err() };
}

function project(yaml?: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'loopguard-hookconfig-'));
  if (yaml !== undefined) writeFileSync(join(dir, 'loopguard.config.yaml'), yaml);
  return dir;
}

describe('the hook section of loopguard.config.yaml', () => {
  it("adds a project's polling commands to the default ones", async () => {
    const { detector } = await readHookConfig(project('hook:\n  exemptCommands: ["^make watch\\\\b"]\n'));
    const patterns = detector.exemptCommands ?? [];
    expect(patterns.slice(0, DEFAULT_EXEMPT_COMMANDS.length)).toEqual([...DEFAULT_EXEMPT_COMMANDS]);
    expect(patterns.some((p) => p.test('make watch'))).toBe(true);
    expect(patterns.some((p) => p.test('sleep 30'))).toBe(true);
  });

  it('leaves the defaults to the detector when the project names none', async () => {
    expect((await readHookConfig(project())).detector.exemptCommands).toBeUndefined();
  });

  it('reads one frozen default configuration for every project without a file, and a file as it is', async () => {
    const none = await readHookConfig(project());
    expect(none).toBe(DEFAULT_HOOK_CONFIG);
    expect(await readHookConfig(project())).toBe(none);
    expect(Object.isFrozen(none) && Object.isFrozen(none.detector)).toBe(true);
    expect(none).toMatchObject({ enabled: true, lockTimeoutMs: 3000, prices: {} });
    const file = await readHookConfig(project('hook:\n  repeatThreshold: 5\n  lockTimeoutMs: 10\n'));
    expect(file).not.toBe(DEFAULT_HOOK_CONFIG);
    expect(file).toMatchObject({ lockTimeoutMs: 10, detector: { repeatThreshold: 5 } });
  });

  it('reads a file that sets no hook option as the defaults, made without zod like them', async () => {
    // the defaults are written out (the snapshot holds no zod): the schema must give the same
    const { enabled, lockTimeoutMs, prices, detector } = DEFAULT_HOOK_CONFIG;
    const stated = await readHookConfig(
      project(`hook:\n  enabled: true\n  lockTimeoutMs: ${lockTimeoutMs}\n`),
    );
    expect(stated).toEqual({ enabled, lockTimeoutMs, prices, detector });
    for (const text of ['spend:\n  session:\n    maxCostUsd: 5\n', 'hook: {}\n', 'hook:\n']) {
      const config = await readHookConfig(project(text));
      expect(config).toMatchObject({ enabled, lockTimeoutMs, detector });
    }
    await expect(readHookConfig(project('hook:\n  lockTimeoutMs: -1\n'))).rejects.toThrow(/lockTimeoutMs/);
  });
});

describe('a bad detector option in the hook section, as scan and init say it', () => {
  it.each([
    ['hook:\n  bogusKey: 1\n', 'hook: unknown option "bogusKey"'],
    ['hook:\n  repeatThreshold: -1\n', 'hook: "repeatThreshold" Too small'],
    // qa53: a file that is not YAML was said without its name (`loopguard: not valid YAML: …`)
    ['hook: [\n', 'cannot be read: not valid YAML: bad indent at line 2, column 1'],
  ])('names the file and the section: %j', async (yaml, reason) => {
    const dir = project(yaml);
    const file = join(dir, 'loopguard.config.yaml');
    await expect(checkedHookConfig(dir)).rejects.toThrow(`config ${file}: ${reason}`);
    // sessions57: scan goes on with the defaults, as the hooks fail open on it, and says why
    const scan = await runCliIn(dir, ['scan', dir]);
    expect(scan.code).toBe(0);
    expect(scan.err).toContain(`loopguard scan: config ${file}: ${reason}`);
    expect(scan.err).toContain(': the hooks fail open on it; sessions replayed with the default options\n');
    // init in the home folder itself is refused (qa64): a home of its own
    const init = await runCliIn(
      dir,
      ['init', 'gemini', '--dry-run'],
      mkdtempSync(join(tmpdir(), 'loopguard-home-')),
    );
    expect(init.code).toBe(2);
    expect(init.err).toContain(`loopguard: config ${file}: ${reason}`);
  });

  it('reads a good one as readHookConfig does', async () => {
    const dir = project('hook:\n  repeatThreshold: 5\n');
    expect(await checkedHookConfig(dir)).toEqual(await readHookConfig(dir));
  });
});
