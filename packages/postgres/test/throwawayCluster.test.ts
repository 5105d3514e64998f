import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { ThrowawayCluster } from '../src/testing/index.js';

/** The server settings a cluster runs with, read back from the server. */
async function show(cluster: ThrowawayCluster, names: string[]): Promise<string[]> {
  const client = new pg.Client({ connectionString: cluster.connectionString });
  await client.connect();
  try {
    const values: string[] = [];
    for (const name of names) values.push((await client.query(`SHOW ${name}`)).rows[0][name]);
    return values;
  } finally {
    await client.end();
  }
}

describe('ThrowawayCluster options', () => {
  it('durable keeps fsync and synchronous_commit on; settings add server settings', async () => {
    const durable = await ThrowawayCluster.start({ durable: true, settings: ['work_mem=12345kB'] });
    const quick = await ThrowawayCluster.start();
    try {
      expect(await show(durable, ['fsync', 'synchronous_commit', 'work_mem'])).toEqual([
        'on',
        'on',
        '12345kB',
      ]);
      expect(await show(quick, ['fsync', 'synchronous_commit', 'work_mem'])).toEqual(['off', 'off', '4MB']);
    } finally {
      await Promise.all([durable.destroy(), quick.destroy()]);
    }
  });
});
