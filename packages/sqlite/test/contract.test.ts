import { syncDetectorContract, syncStorageContract } from '@loopguard/core/testing';
import { describe } from 'vitest';
import { ADAPTERS } from './adapters.js';

/**
 * The synchronous contracts (nested transactions, size limits, `LoopDetector` resuming from storage)
 * on the in-memory adapters and SQLite. The shared contracts run on the same adapters through their
 * asynchronous view: core's storageContract.test.ts and ./asyncContract.test.ts.
 */
describe.each(ADAPTERS)('synchronous storage contract: $name', ({ create }) => {
  syncStorageContract(create);
  syncDetectorContract(create);
});
