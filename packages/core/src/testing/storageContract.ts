import { describe } from 'vitest';
import { attemptStoreContract } from './attemptStoreContract.js';
import { contextEntryContract } from './contextEntryContract.js';
import type { ContractFactory } from './contractSubject.js';
import { detectorContract } from './detectorContract.js';
import { taskContract } from './taskContract.js';
import { transactionContract } from './transactionContract.js';

/**
 * Registers every contract suite — tasks, context entries, attempts, transactions and the
 * asynchronous detector end to end — for each adapter, as vitest tests.
 * @param adapters - a name and a factory per adapter; `skip` (a reason) leaves one out, visibly;
 * `syncSkip` (a reason) leaves out `LoopDetector` on an adapter without synchronous ports, and checks it has none.
 * @example
 * describeStorageContracts([{ name: 'my store', create: async () => subjectOf(await openMyStore()) }]);
 */
export function describeStorageContracts(
  adapters: ReadonlyArray<{ name: string; create: ContractFactory; skip?: string; syncSkip?: string }>,
): void {
  for (const { name, create, skip, syncSkip } of adapters) {
    const suite = skip === undefined ? describe : describe.skip;
    suite(`storage contract: ${name}${skip === undefined ? '' : ` (skipped: ${skip})`}`, () => {
      taskContract(create);
      contextEntryContract(create);
      attemptStoreContract(create);
      transactionContract(create);
      detectorContract(create, syncSkip);
    });
  }
}
