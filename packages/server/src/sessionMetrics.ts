import type { SessionCounts } from '@loopguard/core/internal';
import { Gauge, type Registry } from 'prom-client';

/**
 * Adds the session gauges to `registry`, read from the store at each scrape (one read shared by
 * the gauges of one scrape): `loopguard_sessions{verdict}` (every stored session of every door,
 * by verdict), `loopguard_session_spend_tokens{agent}` and `loopguard_session_spend_dollars{agent}`
 * (what the spend guard counted, per agent). Gauges, not counters: a session's verdict changes (a
 * running session ends clean or is stopped).
 * @example registerSessionMetrics(registry, () => reader.sessionCounts());
 */
export function registerSessionMetrics(registry: Registry, read: () => Promise<SessionCounts>): void {
  let pending: Promise<SessionCounts> | undefined;
  const counts = (): Promise<SessionCounts> => {
    pending ??= read().finally(() => {
      pending = undefined;
    });
    return pending;
  };
  new Gauge({
    name: 'loopguard_sessions',
    help: 'Agent sessions stored (hook sessions, loopguard run, adapters), by verdict.',
    labelNames: ['verdict'],
    registers: [registry],
    async collect() {
      const { byVerdict } = await counts();
      for (const [verdict, count] of Object.entries(byVerdict)) this.set({ verdict }, count);
    },
  });
  new Gauge({
    name: 'loopguard_session_spend_tokens',
    help: 'Tokens the spend guard counted in the stored sessions, by agent.',
    labelNames: ['agent'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const { agent, tokens } of (await counts()).spendByAgent) this.set({ agent }, tokens);
    },
  });
  new Gauge({
    name: 'loopguard_session_spend_dollars',
    help: 'Dollars the spend guard counted in the stored sessions (priced models only), by agent.',
    labelNames: ['agent'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const { agent, costUsd } of (await counts()).spendByAgent) this.set({ agent }, costUsd);
    },
  });
}
