import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { readHookConfig } from '../src/hook/hookConfig.js';
import { tempProject } from './hookHelpers.js';
import { loopguard } from './runHelpers.js';

const HOME = { HOME: '/nonexistent-home' };

describe('loopguard init: the spend guard', () => {
  it('--spend writes the documented default ($10 a session, warned at 80 %), which the hook reads', async () => {
    const dir = tempProject();
    const result = await loopguard(dir, ['init', 'claude', '--project', '--spend'], HOME);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('loopguard.config.yaml: spend guard set');
    expect(parse(readFileSync(join(dir, 'loopguard.config.yaml'), 'utf8'))).toEqual({
      spend: { session: { maxCostUsd: 10 }, warnAt: 0.8 },
    });
    expect((await readHookConfig(dir)).spend).toMatchObject({ session: { maxCostUsd: 10 }, warnAt: 0.8 });
  });

  it('--max-cost-usd and --max-tokens set the caps, keeping the file’s other keys and comments', async () => {
    const dir = tempProject();
    writeFileSync(join(dir, 'loopguard.config.yaml'), '# my settings\nhook:\n  repeatThreshold: 4\n');
    const result = await loopguard(
      dir,
      ['init', 'claude', '--project', '--max-cost-usd', '2.5', '--max-tokens', '500000'],
      HOME,
    );
    expect(result.code, result.stderr).toBe(0);
    const text = readFileSync(join(dir, 'loopguard.config.yaml'), 'utf8');
    expect(text).toContain('# my settings');
    expect(parse(text)).toEqual({
      hook: { repeatThreshold: 4 },
      spend: { session: { maxCostUsd: 2.5, maxTokens: 500000 }, warnAt: 0.8 },
    });
  });

  it('never replaces a budget silently: --spend keeps the file’s cap, a new amount replaces only that cap', async () => {
    const dir = tempProject();
    const own = '# mine\nspend:\n  session:\n    maxCostUsd: 0.5\n  projectDay:\n    maxTokens: 9000000\n';
    writeFileSync(join(dir, 'loopguard.config.yaml'), own);
    const kept = await loopguard(dir, ['init', 'claude', '--project', '--spend'], HOME);
    expect(kept.code, kept.stderr).toBe(0);
    expect(kept.stdout).toContain(
      'loopguard.config.yaml: spend guard kept: $0.50 a session, 9,000,000 tokens a project a day, warned at 80 %, a reply without a price: warn (--max-cost-usd <usd> or --max-tokens <n> changes it)',
    );
    expect(readFileSync(join(dir, 'loopguard.config.yaml'), 'utf8')).toBe(own);
    const replaced = await loopguard(dir, ['init', 'claude', '--project', '--max-cost-usd', '2'], HOME);
    expect(replaced.stdout).toContain(
      'spend guard set (docs/spend.md): $2.00 (was $0.50) a session, 9,000,000 tokens a project a day',
    );
    const text = readFileSync(join(dir, 'loopguard.config.yaml'), 'utf8');
    expect(text).toContain('# mine');
    expect(parse(text)).toEqual({
      spend: { session: { maxCostUsd: 2 }, projectDay: { maxTokens: 9000000 } },
    });
  });

  it('refuses a spend section with a bad value (a NaN reads as NaN), naming the key; nothing written', async () => {
    const dir = tempProject();
    writeFileSync(join(dir, 'loopguard.config.yaml'), 'spend:\n  session:\n    maxCostUsd: .nan\n');
    const bad = await loopguard(dir, ['init', 'claude', '--project', '--max-tokens', '10'], HOME);
    expect(bad).toMatchObject({ code: 2 });
    expect(bad.stderr).toMatch(
      /^loopguard: config .*: spend: "session.maxCostUsd" .*\(got number NaN\); nothing written$/,
    );
    expect(readFileSync(join(dir, 'loopguard.config.yaml'), 'utf8')).toContain('.nan');
    expect(existsSync(join(dir, '.claude', 'settings.json'))).toBe(false);
  });

  it('without a spend flag writes no spend section (off unless set); --dry-run writes nothing', async () => {
    const dir = tempProject();
    expect((await loopguard(dir, ['init', 'claude', '--project'], HOME)).code).toBe(0);
    expect(existsSync(join(dir, 'loopguard.config.yaml'))).toBe(false);
    const dry = await loopguard(dir, ['init', 'claude', '--project', '--spend', '--dry-run'], HOME);
    expect(dry.stdout).toContain('loopguard.config.yaml: would set');
    expect(existsSync(join(dir, 'loopguard.config.yaml'))).toBe(false);
  });

  it('edits a JSON configuration file in place', async () => {
    const dir = tempProject();
    writeFileSync(join(dir, 'loopguard.config.json'), '{"hook":{"enabled":true}}');
    const gemini = await loopguard(dir, ['init', 'gemini', '--project', '--max-tokens', '1000'], HOME);
    expect(gemini.code).toBe(0);
    // Gemini CLI's hooks read its chat's usage (transcript_path): no note sends the user elsewhere
    expect(gemini.stdout).toContain('loopguard.config.json: spend guard set (docs/spend.md)');
    expect(gemini.stdout).not.toContain('agent-stream');
    expect(JSON.parse(readFileSync(join(dir, 'loopguard.config.json'), 'utf8'))).toEqual({
      hook: { enabled: true },
      spend: { session: { maxTokens: 1000 }, warnAt: 0.8 },
    });
  });

  it('refuses a bad cap or an unreadable configuration file with one line, exit 2, nothing written', async () => {
    const dir = tempProject();
    expect(await loopguard(dir, ['init', 'claude', '--project', '--max-cost-usd', '-1'], HOME)).toMatchObject(
      {
        code: 2,
        stderr: 'loopguard: --max-cost-usd must be a number > 0, got "-1"',
      },
    );
    writeFileSync(join(dir, 'loopguard.config.yaml'), 'hook: [unclosed\n');
    const bad = await loopguard(dir, ['init', 'claude', '--project', '--spend'], HOME);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(
      /^loopguard: config .*loopguard\.config\.yaml: cannot be read: .*; nothing written$/,
    );
    expect(readFileSync(join(dir, 'loopguard.config.yaml'), 'utf8')).toBe('hook: [unclosed\n');
    expect(existsSync(join(dir, '.claude', 'settings.json'))).toBe(false);
  });
});
