import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_EXEMPT_COMMANDS } from '@loopguard/core/steps';
import { describe, expect, it } from 'vitest';
import { DEFAULT_HOOK_CONFIG, readHookConfig } from '../src/hook/hookConfig.js';

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
