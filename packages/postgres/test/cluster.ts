import type { Clock } from '@loopguard/core';
import { afterAll, beforeAll } from 'vitest';
import { openPostgresStorage, type PostgresStorage, type PostgresStorageOptions } from '../src/index.js';
import { ThrowawayCluster } from '../src/testing/index.js';

/**
 * Starts one throwaway PostgreSQL cluster for the test file (fails the file loudly, with the reason,
 * when PostgreSQL cannot start) and removes it afterwards.
 */
export function useCluster(): () => ThrowawayCluster {
  let cluster: ThrowawayCluster | undefined;
  beforeAll(async () => {
    cluster = await ThrowawayCluster.start();
  });
  afterAll(async () => {
    await cluster?.destroy();
  });
  return () => {
    if (cluster === undefined)
      throw new Error('the PostgreSQL cluster did not start (see the beforeAll error)');
    return cluster;
  };
}

let schemas = 0;

/** A schema name no other test of this process uses. */
export function freshSchema(): string {
  schemas += 1;
  return `t_${process.pid}_${schemas}`;
}

/** A storage on a schema of its own (fresh tables), optionally with a clock. */
export function openFresh(
  cluster: ThrowawayCluster,
  options: Omit<PostgresStorageOptions, 'connectionString'> & { clock?: Clock } = {},
): Promise<PostgresStorage> {
  return openPostgresStorage({
    connectionString: cluster.connectionString,
    schema: freshSchema(),
    ...options,
  });
}
