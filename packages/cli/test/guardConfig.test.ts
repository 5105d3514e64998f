import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { HookConfig } from '../src/hook/hookConfig.js';
import { SHA256_SEAL_CHECKSUM, sha256Hex } from '../src/hook/sealChecksum.js';

/** Every schema starts with a call of one of `z`'s makers (`z.object`, `z.number`, ...): counted here. */
const made = vi.hoisted(() => ({ count: 0 }));
vi.mock('zod', async (importOriginal) =>
  (await import('../../core/test/zodMakers.js')).countingZod(
    await importOriginal<typeof import('zod')>(),
    made,
  ),
);

const CONFIG = {
  hook: { lockTimeoutMs: 500, stopAfter: 2, exemptCommands: ['^make watch\\b'] },
  spend: { session: { maxCostUsd: 5 }, prices: { 'my-model': { input: 1, output: 2 } } },
};

/** A project with `.loopguard` and a configuration file. */
function project(config: unknown = CONFIG): string {
  const dir = mkdtempSync(join(scratch, 'project-'));
  mkdirSync(join(dir, '.loopguard'));
  writeFileSync(join(dir, 'loopguard.config.json'), JSON.stringify(config));
  return dir;
}

/**
 * The configuration a new hook process reads (modules loaded afresh: no schema made yet), and
 * whether it made any schema (loaded zod) to read it.
 */
async function hookCall(dir: string) {
  vi.resetModules();
  const { readGuardConfig } = await import('../src/hook/guardConfig.js');
  const before = made.count;
  const config = await readGuardConfig(dir);
  return { config, validated: made.count > before };
}

const scratch = mkdtempSync(join(tmpdir(), 'loopguard-guardconfig-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const sealed = (dir: string) => join(dir, '.loopguard', 'config.sealed');

describe("the hook's configuration, validated when the file changed", () => {
  it('validates a file once, then takes the sealed result without zod: the same configuration', async () => {
    const dir = project();
    const first = await hookCall(dir);
    expect(first.validated).toBe(true);
    expect(statSync(sealed(dir)).mode & 0o777).toBe(0o600);
    const second = await hookCall(dir);
    expect(second.validated).toBe(false);
    // the same configuration, but for the logger (each process has its own)
    const data = ({ detector: { logger, ...detector }, ...config }: HookConfig) => ({ ...config, detector });
    expect(data(second.config)).toEqual(data(first.config));
    const { detector } = second.config;
    expect(detector).toMatchObject({ stopAfter: 2, repeatThreshold: 3 });
    expect(detector.exemptCommands?.some((p) => p.test('make watch'))).toBe(true);
    expect(detector.exemptCommands?.some((p) => p.test('sleep 30'))).toBe(true);
    expect(Object.isFrozen(detector)).toBe(true);
    expect(second.config).toMatchObject({
      lockTimeoutMs: 500,
      spend: { session: { maxCostUsd: 5 }, warnAt: 0.8 },
      prices: { 'my-model': { input: 1, output: 2 } },
    });
    // a detector built from the sealed options does not validate them again
    const { StepLoopDetector } = await import('@loopguard/core/steps');
    const count = made.count;
    new StepLoopDetector(detector);
    expect(made.count).toBe(count);
  });

  it('validates again when the file changed, and refuses an invalid one by name', async () => {
    const dir = project();
    await hookCall(dir);
    writeFileSync(join(dir, 'loopguard.config.json'), JSON.stringify({ hook: { stopAfter: 3 } }));
    const changed = await hookCall(dir);
    expect(changed.validated).toBe(true);
    expect(changed.config.detector.stopAfter).toBe(3);
    expect(changed.config.spend).toBeUndefined();
    expect((await hookCall(dir)).validated).toBe(false);
    writeFileSync(join(dir, 'loopguard.config.json'), JSON.stringify({ hook: { stopAfter: 0 } }));
    await expect(hookCall(dir)).rejects.toThrow(/stopAfter/);
    await expect(hookCall(dir)).rejects.toThrow(/stopAfter/);
    // qa53: named as scan and init name it (hook.log said `StepLoopDetector options: …`)
    writeFileSync(join(dir, 'loopguard.config.json'), JSON.stringify({ hook: { repeatThreshold: 1 } }));
    const refusal = `config ${join(dir, 'loopguard.config.json')}: hook: "repeatThreshold" Too small: expected number to be >=2 (got number 1)`;
    await expect(hookCall(dir)).rejects.toThrow(refusal);
    // sessions55: the refusal is kept for these bytes: the next call fails open on it without zod
    vi.resetModules();
    const { readGuardConfig } = await import('../src/hook/guardConfig.js');
    const before = made.count;
    await expect(readGuardConfig(dir)).rejects.toThrow(refusal);
    expect(made.count).toBe(before);
  });

  it('stamps the sealed file with the defaults it was resolved with (a build with others validates again)', async () => {
    const { CONFIG_SEAL_STAMP } = await import('../src/hook/configSeal.js');
    const { DEFAULT_HOOK_LOCK_TIMEOUT_MS } = await import('../src/hook/hookConfig.js');
    const { BUILD_ID } = await import('../src/buildId.js');
    const spend = await import('@loopguard/core/spend');
    expect(CONFIG_SEAL_STAMP).toBe(
      `c4.${BUILD_ID}.${DEFAULT_HOOK_LOCK_TIMEOUT_MS}.${spend.DEFAULT_SPEND_WARN_AT}.${spend.DEFAULT_BURN_MINUTES}.${spend.DEFAULT_ON_UNKNOWN_PRICE}`,
    );
  });

  it('refuses a planted configuration: a changed row, one sealed for other bytes, a symbolic link', async () => {
    // The attack: another process writes a "validated" configuration (the hook switched off, or an
    // option the schema refuses) for the hook to take without validating the file.
    const dir = project({ hook: { stopAfter: 2 } });
    await hookCall(dir);
    const row = readFileSync(sealed(dir), 'utf8');
    const fileKey = (path: string) => `loopguard.config.json:${sha256Hex(readFileSync(path))}`;
    const file = join(dir, 'loopguard.config.json');
    const goodKey = fileKey(file);
    expect(row).toContain(goodKey);
    // the file made invalid, the row's key rewritten to its bytes (the seal left as it was)
    writeFileSync(file, JSON.stringify({ hook: { stopAfter: 0 } }));
    writeFileSync(sealed(dir), row.replace(goodKey, fileKey(file)));
    await expect(hookCall(dir)).rejects.toThrow(/stopAfter/);
    // switched off in the row, the seal left as it was
    writeFileSync(join(dir, 'loopguard.config.json'), JSON.stringify({ hook: { stopAfter: 2 } }));
    await hookCall(dir);
    writeFileSync(
      sealed(dir),
      readFileSync(sealed(dir), 'utf8').replace('"enabled":true', '"enabled":false'),
    );
    const switched = await hookCall(dir);
    expect(switched).toMatchObject({ validated: true, config: { enabled: true } });
    // the detector's options changed inside the row
    await hookCall(dir);
    writeFileSync(
      sealed(dir),
      readFileSync(sealed(dir), 'utf8').replace(/stopAfter(\\*"):2/, 'stopAfter$1:0'),
    );
    expect((await hookCall(dir)).validated).toBe(true);
    // a symbolic link to a row the hook wrote elsewhere is not read
    const linked = project({ hook: { stopAfter: 2 } });
    symlinkSync(sealed(dir), sealed(linked));
    expect((await hookCall(linked)).validated).toBe(true);
  });

  it('trust48: a sealed configuration that came with the project (an archive, a copy) is validated again', async () => {
    // The attack: an archive of a project ships its `.loopguard/config.sealed`, resealed (the seal is
    // a checksum anyone computes) to switch the hooks off for the configuration file beside it, whose
    // text says nothing of it: `status`, the status line and `init` read the file.
    const { sealText } = await import('@loopguard/core/steps');
    const origin = project({ spend: { session: { maxCostUsd: 5 } } });
    await hookCall(origin);
    const row = readFileSync(sealed(origin), 'utf8');
    const stamp = /^\{"seal":"(.*) sha256:/.exec(row)?.[1] as string;
    const body = row.slice(row.indexOf('","state":') + '","state":'.length, -1);
    const off = body.replace('"enabled":true', '"enabled":false').replace(/,"spend":\{.*\}\}$/, '}');
    expect(off).not.toBe(body);
    writeFileSync(sealed(origin), sealText(off, stamp, 'state', SHA256_SEAL_CHECKSUM));
    // where it was written, the row is taken as it is (whoever can write .loopguard can write the file too)
    expect((await hookCall(origin)).config.enabled).toBe(false);
    // unpacked elsewhere: the same bytes, another file
    const unpacked = join(scratch, `unpacked-${Date.now()}`);
    cpSync(origin, unpacked, { recursive: true, preserveTimestamps: true });
    const read = await hookCall(unpacked);
    expect(read).toMatchObject({
      validated: true,
      config: { enabled: true, spend: { session: { maxCostUsd: 5 } } },
    });
    expect((await hookCall(unpacked)).validated).toBe(false); // its own row, written now, is taken
  });

  it('trust51: a configuration sealed by another build (its checks, not only its defaults) is validated again', async () => {
    // What a build sealed passed that build's checks: an exemption of every command (`.`) passed
    // them all before trust51, and the defaults did not change with the check that refuses it.
    const { DEFAULT_EXEMPT_COMMANDS, parseStepLoopDetectorOptions, sealStepLoopDetectorOptions, sealText } =
      await import('@loopguard/core/steps');
    const dir = project();
    await hookCall(dir);
    const row = readFileSync(sealed(dir), 'utf8');
    const stamp = /^\{"seal":"([^ ]*) sha256:/.exec(row)?.[1] as string;
    const { BUILD_ID } = await import('../src/buildId.js');
    expect(stamp.split('.').slice(0, 2)).toEqual(['c4', BUILD_ID]);
    // the row as a build with other checks wrote it: `.` among the exemptions
    const body = row.slice(row.indexOf('","state":') + '","state":'.length, -1);
    const state = JSON.parse(body) as { detector: string };
    state.detector = sealStepLoopDetectorOptions(
      parseStepLoopDetectorOptions({ stopAfter: 2, exemptCommands: [...DEFAULT_EXEMPT_COMMANDS, /./] }),
      SHA256_SEAL_CHECKSUM,
    );
    const everything = JSON.stringify(state);
    const otherBuilds = [
      // every build before trust51 stamped its layout and defaults only
      `c1.${stamp.split('.').slice(2).join('.')}`,
      // and sessions55's, which kept a refused file's error too
      `c2.${stamp.split('.').slice(2).join('.')}`,
      stamp.replace(`.${BUILD_ID}.`, '.0123456789abcdef.'),
    ];
    for (const other of otherBuilds) {
      // (the detector's own seal inside holds core's layout and defaults: unchanged here)
      writeFileSync(sealed(dir), sealText(everything, other, 'state', SHA256_SEAL_CHECKSUM));
      const read = await hookCall(dir);
      expect(read.validated).toBe(true);
      expect(read.config.detector.exemptCommands?.some((pattern) => pattern.test('ls'))).toBe(false);
    }
    // this build's own row is taken as it is (whoever can write .loopguard can write the file too)
    writeFileSync(sealed(dir), sealText(everything, stamp, 'state', SHA256_SEAL_CHECKSUM));
    expect((await hookCall(dir)).config.detector.exemptCommands?.some((pattern) => pattern.test('ls'))).toBe(
      true,
    );
  });

  it('keeps nothing without a .loopguard folder, and reads a project without a file as the defaults', async () => {
    const dir = mkdtempSync(join(scratch, 'project-'));
    writeFileSync(join(dir, 'loopguard.config.json'), JSON.stringify(CONFIG));
    expect((await hookCall(dir)).validated).toBe(true);
    expect((await hookCall(dir)).validated).toBe(true);
    const none = await hookCall(mkdtempSync(join(scratch, 'project-')));
    expect(none.validated).toBe(false);
    expect(none.config.detector).toMatchObject({ repeatThreshold: 3, stopAfter: 1 });
  });
});
