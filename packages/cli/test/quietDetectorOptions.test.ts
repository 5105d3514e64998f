import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { SCAN_FIXTURES } from './agentTranscripts.js';

/** Every schema core makes starts with a call of one of `z`'s makers (`z.object`, ...): counted here. */
const made = vi.hoisted(() => ({ count: 0 }));
vi.mock('zod', async (importOriginal) =>
  (await import('../../core/test/zodMakers.js')).countingZod(
    await importOriginal<typeof import('zod')>(),
    made,
  ),
);

const LOOPING = [
  'claude-2.1.330-looping.jsonl',
  'codex-0.169.0-looping.jsonl',
  'gemini-0.61.0-looping.jsonl',
];

describe("a scan's detector options, none set", () => {
  it('are the defaults, made without zod in each thread; the reports are those of the options validated with zod', async () => {
    const { parseStepLoopDetectorOptions } = await import('@loopguard/core/steps');
    const { DEFAULT_DETECTOR_OPTIONS, quietDetectorOptions } = await import(
      '../src/hook/quietDetectorOptions.js'
    );
    const { noopLogger } = await import('../src/hook/noopLogger.js');
    const { SessionScan } = await import('../src/scan/SessionScan.js');
    const { scanFile } = await import('../src/scan/scanFile.js');
    const { checkedHookConfig } = await import('../src/hook/checkedHookConfig.js');
    const { mkdtempSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const before = made.count;
    // a project without a configuration file: checked, then each thread's options, then its files
    const { detector } = await checkedHookConfig(mkdtempSync(join(tmpdir(), 'loopguard-quiet-')));
    const quiet = SessionScan.detectorOptions(detector);
    expect(quiet).toBe(DEFAULT_DETECTOR_OPTIONS);
    const reports = [];
    for (const name of LOOPING)
      reports.push(await scanFile(fileURLToPath(new URL(name, SCAN_FIXTURES)), quiet));
    expect(made.count).toBe(before);
    // what zod gives for the same (no) options: the same values, the same reports
    const validated = parseStepLoopDetectorOptions({ logger: noopLogger });
    expect(made.count).toBeGreaterThan(before);
    expect(quiet).toEqual(validated);
    for (const [i, name] of LOOPING.entries()) {
      const report = await scanFile(fileURLToPath(new URL(name, SCAN_FIXTURES)), validated);
      expect(report.session?.loops.length).toBeGreaterThan(0);
      expect(reports[i]).toEqual(report);
    }
    // options set are still validated, and a bad one refused by name
    expect(Object.isFrozen(quietDetectorOptions({ stopAfter: 3 }))).toBe(true);
    expect(() => quietDetectorOptions({ stopAfter: -1 })).toThrow(/stopAfter/);
  });
});
