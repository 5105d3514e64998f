/**
 * `@loopguard/core/testing`: the contract suites every storage adapter passes (vitest tests, so
 * vitest must be installed), for an adapter of your own: tasks, context entries, attempts,
 * transactions, and the detector end to end.
 * @example
 * import { describeStorageContracts, T0 } from '@loopguard/core/testing';
 * describeStorageContracts([{ name: 'memory', create: async () => { … } }]);
 * @packageDocumentation
 */

export { attemptStoreContract } from '../testing/attemptStoreContract.js';
export { contextEntryContract } from '../testing/contextEntryContract.js';
export { attempt, type ContractFactory, type ContractSubject, T0 } from '../testing/contractSubject.js';
export { detectorContract } from '../testing/detectorContract.js';
export { describeStorageContracts } from '../testing/storageContract.js';
export { syncDetectorContract } from '../testing/syncDetectorContract.js';
export { type SyncContractSubject, syncStorageContract } from '../testing/syncStorageContract.js';
export { taskContract } from '../testing/taskContract.js';
export { transactionContract } from '../testing/transactionContract.js';
