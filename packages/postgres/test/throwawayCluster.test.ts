import { createServer } from 'node:net';
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

/** A TCP port on 127.0.0.1 this test holds until `close`: no server can bind it meanwhile. */
async function heldPort(): Promise<{ port: number; close: () => Promise<void> }> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  if (address === null || typeof address !== 'object') throw new Error('no port held');
  return { port: address.port, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

// codex71: the port is picked, then the server binds it; another process can take it in between
describe('ThrowawayCluster.start: a port taken before the server binds it', () => {
  it('starts again on a fresh port', async () => {
    const held = await heldPort();
    try {
      const cluster = await ThrowawayCluster.start({ port: held.port });
      try {
        expect(cluster.port).not.toBe(held.port);
        expect(cluster.connectionString).toBe(`postgres://loopguard@127.0.0.1:${cluster.port}/postgres`);
        expect(await show(cluster, ['port'])).toEqual([String(cluster.port)]);
        expect(cluster.log()).toMatch(/could not bind IPv4 address "127\.0\.0\.1": Address already in use/);
      } finally {
        await cluster.destroy();
      }
    } finally {
      await held.close();
    }
  });

  it('a start that fails for another reason is not tried again', async () => {
    const start = ThrowawayCluster.start({ settings: ['no_such_setting=1'] });
    await expect(start).rejects.toThrow(/PostgreSQL did not start/);
    const message = String(await start.catch((error: Error) => error.message));
    expect(message.match(/unrecognized configuration parameter "no_such_setting"/g)).toHaveLength(1);
  });
});
