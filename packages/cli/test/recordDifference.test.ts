import { describe, expect, it } from 'vitest';
import { recordDifference } from '../src/scan/recordDifference.js';
import type { ScannedSession } from '../src/scan/scannedSession.js';
import type { SessionRecord } from '../src/scan/sessionRecord.js';

/** A session whose transcript ran 2 tool calls costing `costUsd`, and the record the hooks kept of it. */
function session(costUsd: number, recordedUsd: number): ScannedSession {
  const record: SessionRecord = {
    project: '/p',
    verdict: 'clean',
    summary: 'running, 2 tool calls ran',
    toolCalls: 2,
    refusedCalls: 0,
    nudges: 0,
    stop: null,
    costUsd: recordedUsd,
    switchedOff: false,
  };
  return { loops: [], toolCalls: 2, costUsd, record } as unknown as ScannedSession;
}

describe('recordDifference: dollars', () => {
  it('the same amount summed in another order is no difference, where rounding for display splits it (doors67)', () => {
    // 0.000001 + 0.000104 is 0.00010499999999999999 in floating point: "$0.00010" beside "$0.00011"
    expect(recordDifference(session(0.000001 + 0.000104, 0.000105))).toBeUndefined();
  });

  it('amounts that really differ are told', () => {
    expect(recordDifference(session(0.000104, 0.000105))).toBe(
      "loopguard's spend guard counted $0.00011; the transcript's replies cost $0.00010 at its project's prices",
    );
  });
});
