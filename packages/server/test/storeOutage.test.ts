import { afterAll, describe, expect, it } from 'vitest';
import { type RunningStatusServer, startStatusServer } from '../src/index.js';
import { useStores } from './stores.js';

const openStore = useStores(['postgres']);
let server: RunningStatusServer | undefined;

afterAll(async () => {
  await server?.close();
});

describe('a PostgreSQL restart under the status server', () => {
  it('answers 503 with the error while the server is down, and serves again once it is back', async () => {
    const store = await openStore('postgres');
    try {
      await store.upsertTask({ id: 'T1', status: 'in_progress' });
      server = await startStatusServer({ reader: store.reader, port: 0, clock: store.clock, cacheMs: 0 });
      const status = () => fetch(new URL('/status', server?.url));
      expect((await status()).status).toBe(200);
      await store.cluster().stop();
      const down = await status();
      expect(down.status).toBe(503);
      expect(((await down.json()) as { error: string }).error).toMatch(/PgStatusReader/);
      expect((await fetch(new URL('/healthz', server.url))).status).toBe(200);
      await store.cluster().startServer();
      const back = await status();
      expect(back.status).toBe(200);
      expect(((await back.json()) as { page: { total: number } }).page.total).toBe(1);
    } finally {
      await server?.close();
      server = undefined;
      await store.cleanup();
    }
  });
});
