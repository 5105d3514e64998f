import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_EXEMPT_COMMANDS } from '@loopguard/core/steps';
import { describe, expect, it } from 'vitest';
import { readHookConfig } from '../src/hook/hookConfig.js';

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
});
