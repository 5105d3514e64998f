import { describe, expect, it } from 'vitest';
import {
  FNV_SEAL_CHECKSUM,
  parseStepLoopDetectorOptions,
  StepLoopDetector,
  sealStepLoopDetectorOptions,
  unsealStepLoopDetectorOptions,
} from '../../src/entries/steps.js';

const logger = { child: () => logger } as never;

describe("the detector's options, sealed", () => {
  it('read back as validated, with RegExps and the logger given, when the text is unchanged', () => {
    const options = parseStepLoopDetectorOptions({
      stopAfter: 2,
      exemptTools: ['Wait'],
      exemptCommands: [/^make watch\b/i],
      logger,
    });
    const text = sealStepLoopDetectorOptions(options);
    const restored = unsealStepLoopDetectorOptions(text, FNV_SEAL_CHECKSUM, logger);
    expect(restored).toEqual(options);
    expect(Object.isFrozen(restored)).toBe(true);
    expect(new StepLoopDetector(restored).options.stopAfter).toBe(2);
  });

  it('refuses what this build did not validate and seal: anything else is validated again', () => {
    expect(() => sealStepLoopDetectorOptions({ stopAfter: 2 })).toThrow(/validated first/);
    const text = sealStepLoopDetectorOptions(parseStepLoopDetectorOptions({ stopAfter: 2 }));
    expect(unsealStepLoopDetectorOptions(text.replace('"stopAfter":2', '"stopAfter":0'))).toBeUndefined();
    expect(unsealStepLoopDetectorOptions(text.replace('"seal":"o1.', '"seal":"o0.'))).toBeUndefined();
    expect(unsealStepLoopDetectorOptions(text, { name: 'other', digest: () => 'x' })).toBeUndefined();
    expect(unsealStepLoopDetectorOptions(text, FNV_SEAL_CHECKSUM, {} as never)).toBeUndefined();
    expect(unsealStepLoopDetectorOptions('not json')).toBeUndefined();
  });
});
