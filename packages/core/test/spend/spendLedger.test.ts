import {
  addUsage,
  checkSpend,
  libraryCostOf,
  loadLibraryCost,
  type PriceLibrary,
  parseSpendOptions,
  priceBook,
  SpendGuard,
  SpendLedger,
  type SpendScope,
  spendEntry,
  spendGuardOn,
  type UsageRecord,
  usageRecordOf,
} from '@loopguard/core/spend';
import { calcPrice } from '@pydantic/genai-prices';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';

let libraryCost: Awaited<ReturnType<typeof loadLibraryCost>>;
beforeAll(async () => {
  libraryCost = await loadLibraryCost();
});

const MINUTE = 60_000;
const flat = priceBook({ m: { input: 1, output: 1 } }); // $1 per million tokens, cache reads $0.10

function reply(id: string | undefined, tokens: number, at?: number, model = 'm'): UsageRecord {
  return usageRecordOf({ replyId: id, model, inputTokens: tokens, outputTokens: 0, at });
}

function session(ledger = new SpendLedger()): SpendScope[] {
  return [{ kind: 'session', label: 'this session', ledger }];
}

describe('usage records', () => {
  it('counts missing, negative, NaN and non-number counts as 0, and never throws', () => {
    const record = usageRecordOf({
      inputTokens: -5,
      outputTokens: Number.NaN,
      cacheReadTokens: '7',
      cacheCreationTokens: 3.9,
      replyId: '',
      model: '',
      at: Number.POSITIVE_INFINITY,
    });
    expect(record).toEqual({ inputTokens: 0, outputTokens: 0, cacheCreationTokens: 3, cacheReadTokens: 0 });
  });

  it('counts a reply id once; records without an id always count', () => {
    const ledger = new SpendLedger();
    expect(ledger.add(reply('a', 10), flat, 0)).toBe(true);
    expect(ledger.add(reply('a', 10), flat, 0)).toBe(false);
    ledger.add(reply(undefined, 5), flat, 0);
    ledger.add(reply(undefined, 5), flat, 0);
    expect(ledger.totals).toMatchObject({ replies: 3, tokens: 20 });
  });

  it('property: shuffled and duplicated records count each reply once', () => {
    const replies = fc.uniqueArray(
      fc.record({
        id: fc.string({ minLength: 1, maxLength: 8 }),
        tokens: fc.integer({ min: -100, max: 100_000 }),
        at: fc.integer({ min: 0, max: 600 * MINUTE }),
      }),
      { selector: (r) => r.id, maxLength: 40 },
    );
    fc.assert(
      fc.property(replies, fc.array(fc.nat(), { maxLength: 80 }), fc.integer(), (list, dupes, seed) => {
        const records = list.map((r) => reply(r.id, r.tokens, r.at));
        const noisy = [
          ...records,
          ...dupes.filter(() => records.length > 0).map((d) => records[d % records.length] as UsageRecord),
        ];
        // a seeded shuffle
        let s = seed;
        for (let i = noisy.length - 1; i > 0; i--) {
          s = (s * 1103515245 + 12345) & 0x7fffffff;
          const j = s % (i + 1);
          [noisy[i], noisy[j]] = [noisy[j] as UsageRecord, noisy[i] as UsageRecord];
        }
        const ledger = new SpendLedger();
        for (const record of noisy) ledger.add(record, flat, 0);
        const expected = list.reduce((sum, r) => sum + Math.max(0, r.tokens), 0);
        expect(ledger.totals.replies).toBe(list.length);
        expect(ledger.totals.tokens).toBe(expected);
        expect(ledger.totals.costUsd).toBeCloseTo(expected / 1_000_000, 9);
        // the same after a snapshot round trip through JSON
        const again = new SpendLedger(JSON.parse(JSON.stringify(ledger.snapshot())));
        for (const record of noisy) again.add(record, flat, 0);
        expect(again.totals.tokens).toBe(expected);
      }),
    );
  });

  it('a snapshot that is not one starts empty rather than failing', () => {
    for (const bad of [
      null,
      7,
      'x',
      { totals: { tokens: -1, costUsd: 'a' }, seen: [1, 'a'], minutes: [[1, 2]] },
    ]) {
      const ledger = new SpendLedger(bad);
      expect(ledger.totals.tokens).toBe(0);
      expect(ledger.add(reply('b', 1), flat, 0)).toBe(true);
    }
    expect(new SpendLedger({ seen: ['a'] }).add(reply('a', 1), flat, 0)).toBe(false);
  });
});

describe('prices', () => {
  it('an unknown model is counted in tokens and its cost is unknown, never $0', () => {
    const ledger = new SpendLedger();
    ledger.add(reply('a', 1000, 0, 'no-such-model-xyz'), priceBook({}, libraryCost), 0);
    expect(ledger.totals).toMatchObject({
      tokens: 1000,
      costUsd: 0,
      unpricedTokens: 1000,
      unpricedModels: ['no-such-model-xyz'],
    });
  });

  it('prices known models from the pricing library, cache reads cheaper than input', () => {
    const fresh = libraryCost(usageRecordOf({ model: 'claude-sonnet-4-5', inputTokens: 100_000 }));
    const cached = libraryCost(usageRecordOf({ model: 'claude-sonnet-4-5', cacheReadTokens: 100_000 }));
    expect(fresh).toBeCloseTo(0.3, 9); // $3 per million below the long-context tier
    expect(cached).toBeLessThan(fresh as number);
    expect(libraryCost(usageRecordOf({ inputTokens: 5 }))).toBeUndefined();
  });

  it('asks the library once about a model it does not know, and prices as it does', () => {
    let asked = 0;
    const costOf = libraryCostOf({
      calcPrice: (...args: Parameters<PriceLibrary['calcPrice']>) => {
        asked++;
        return calcPrice(...args);
      },
    });
    for (let i = 0; i < 3; i++) {
      expect(costOf(usageRecordOf({ model: 'no-such-model-xyz', inputTokens: 10 + i }))).toBeUndefined();
    }
    expect(asked).toBe(1);
    fc.assert(
      fc.property(
        fc.constantFrom('claude-sonnet-4-5', 'gpt-5', 'no-such-model-xyz', 'gemini-2.5-pro'),
        fc.nat(1e7),
        fc.nat(1e6),
        (model, inputTokens, outputTokens) => {
          const record = usageRecordOf({ model, inputTokens, outputTokens });
          expect(costOf(record)).toBe(libraryCostOf({ calcPrice })(record)); // a fresh one remembers nothing
        },
      ),
    );
  });

  it('a per-model override wins over the library; cache prices default from input', () => {
    const book = priceBook({ 'claude-sonnet-4-5': { input: 10, output: 20 } }, libraryCost);
    expect(
      book(
        usageRecordOf({
          model: 'claude-sonnet-4-5',
          inputTokens: 1e6,
          outputTokens: 1e6,
          cacheCreationTokens: 1e6,
          cacheReadTokens: 1e6,
        }),
      ),
    ).toBeCloseTo(10 + 20 + 10 + 1, 9);
    expect(book(usageRecordOf({ model: 'toString', inputTokens: 1 }))).toBeUndefined();
  });
});

describe('budgets', () => {
  it('warns once at the share and stops at the cap, naming the dollars', () => {
    const options = parseSpendOptions({ session: { maxCostUsd: 5 } });
    const scopes = session();
    addUsage(scopes, reply('a', 3_000_000), flat, 0);
    expect(checkSpend(scopes, options, 0)).toBeUndefined();
    addUsage(scopes, reply('b', 1_100_000), flat, 0);
    const warning = checkSpend(scopes, options, 0);
    expect(warning).toMatchObject({ action: 'warn', reason: 'share', scope: 'session' });
    expect(warning?.message).toContain('you have spent $4.10 of $5.00 on this session (82 %)');
    expect(checkSpend(scopes, options, 0)).toBeUndefined();
    addUsage(scopes, reply('c', 900_000), flat, 0);
    const stop = checkSpend(scopes, options, 0);
    expect(stop).toMatchObject({ action: 'stop', reason: 'cap' });
    expect(stop?.message).toContain('this session reached its budget ($5.00 of $5.00)');
  });

  it('warnAt moves the warning; token caps count every kind of token', () => {
    const options = parseSpendOptions({ session: { maxTokens: 100 }, warnAt: 0.5 });
    const scopes = session();
    addUsage(scopes, usageRecordOf({ replyId: 'a', cacheReadTokens: 30, cacheCreationTokens: 20 }), flat, 0);
    expect(checkSpend(scopes, options, 0)?.message).toContain('50 of 100 tokens');
    addUsage(scopes, usageRecordOf({ replyId: 'b', outputTokens: 50 }), flat, 0);
    expect(checkSpend(scopes, options, 0)?.action).toBe('stop');
  });

  it('says that unpriced tokens are not in the dollars', () => {
    const options = parseSpendOptions({ session: { maxCostUsd: 1 } });
    const scopes = session();
    addUsage(scopes, reply('a', 900_000), flat, 0);
    addUsage(scopes, reply('b', 500, 0, 'mystery'), flat, 0);
    expect(checkSpend(scopes, options, 0)?.message).toContain(
      'The cost of 500 tokens is unknown (no price for mystery)',
    );
  });

  it('a dollar budget that cannot price a reply says so at the first one, once per scope (onUnknownPrice: warn)', () => {
    const options = parseSpendOptions({ session: { maxCostUsd: 0.05 } });
    expect(options.onUnknownPrice).toBe('warn');
    const scopes = session();
    addUsage(scopes, reply('a', 100, 0, 'mystery'), flat, 0);
    const warning = checkSpend(scopes, options, 0);
    expect(warning).toMatchObject({ action: 'warn', reason: 'unknown_price', scope: 'session' });
    expect(warning?.message).toContain(
      'this session cannot be held to its budget of $0.05: the cost of 100 tokens is unknown (no price for mystery)',
    );
    addUsage(scopes, reply('b', 113_200, 0, 'mystery'), flat, 0);
    expect(checkSpend(scopes, options, 0)).toBeUndefined();
    // a token budget or a dollar budget whose replies are all priced says nothing of prices
    const tokens = session();
    addUsage(tokens, reply('a', 100, 0, 'mystery'), flat, 0);
    expect(checkSpend(tokens, parseSpendOptions({ session: { maxTokens: 1000 } }), 0)).toBeUndefined();
    // a dollar burn-rate alarm cannot count the reply either
    const burn = session();
    addUsage(burn, reply('a', 100, 0, 'mystery'), flat, 0);
    expect(checkSpend(burn, parseSpendOptions({ burnRate: { costUsdPerMinute: 1 } }), 0)?.message).toContain(
      'this session cannot be held to its spending alarm in dollars',
    );
  });

  it('onUnknownPrice: stop stops at the first reply it cannot price, before any share warning', () => {
    const options = parseSpendOptions({ session: { maxCostUsd: 1 }, onUnknownPrice: 'stop' });
    const scopes = session();
    addUsage(scopes, reply('a', 900_000), flat, 0);
    addUsage(scopes, reply('b', 10, 0, 'mystery'), flat, 0);
    const stop = checkSpend(scopes, options, 0);
    expect(stop).toMatchObject({ action: 'stop', reason: 'unknown_price' });
    expect(stop?.message).toContain('loopguard stopped it (spend.onUnknownPrice: stop)');
    expect(() => parseSpendOptions({ onUnknownPrice: 'ignore' })).toThrow('"onUnknownPrice"');
  });

  it('a warning never reads as the cap: $0.047 of a $0.05 cap shows a third decimal', () => {
    const options = parseSpendOptions({ session: { maxCostUsd: 0.05 } });
    const scopes = session();
    addUsage(scopes, reply('a', 47_000), flat, 0);
    expect(checkSpend(scopes, options, 0)?.message).toContain(
      'you have spent $0.047 of $0.05 on this session (94 %)',
    );
  });

  it('the task and project-day caps apply to their own scopes; a stop wins over a warning', () => {
    const options = parseSpendOptions({ session: { maxTokens: 100 }, projectDay: { maxTokens: 150 } });
    const day = new SpendLedger();
    day.add(reply('old', 100), flat, 0);
    const scopes: SpendScope[] = [
      ...session(),
      { kind: 'project_day', label: 'this project today', ledger: day },
    ];
    addUsage(scopes, reply('a', 80), flat, 0);
    const verdict = checkSpend(scopes, options, 0);
    expect(verdict).toMatchObject({ action: 'stop', scope: 'project_day' });
    expect(verdict?.message).toContain('this project today reached its budget (180 of 150 tokens)');
  });

  it('the burn rate warns above its threshold over the stretch, again after it fell back', () => {
    const options = parseSpendOptions({ burnRate: { tokensPerMinute: 1000, forMinutes: 2 } });
    const scopes = session();
    addUsage(scopes, reply('a', 1500, 0), flat, 0);
    expect(checkSpend(scopes, options, 0)).toBeUndefined(); // 750 a minute over 2 minutes
    addUsage(scopes, reply('b', 600, MINUTE), flat, MINUTE);
    const alarm = checkSpend(scopes, options, MINUTE);
    expect(alarm).toMatchObject({ action: 'warn', reason: 'burn_rate' });
    expect(alarm?.message).toContain('1,050 tokens a minute (alarm at 1,000) over the last 2 minutes');
    // the user reads it (the agent CLI shows it): tool calls, not the detector's steps
    expect(alarm?.message).toContain('check that each tool call makes progress');
    expect(alarm?.message).not.toMatch(/\bsteps?\b/);
    expect(alarm?.evidence.burnRate).toEqual({
      tokensPerMinute: 1050,
      costUsdPerMinute: expect.any(Number),
      forMinutes: 2,
    });
    expect(checkSpend(scopes, options, MINUTE)).toBeUndefined();
    expect(checkSpend(scopes, options, 10 * MINUTE)).toBeUndefined(); // fell back: re-armed
    addUsage(scopes, reply('c', 5000, 10 * MINUTE), flat, 10 * MINUTE);
    expect(checkSpend(scopes, options, 10 * MINUTE)?.reason).toBe('burn_rate');
  });

  it('a burn rate with action stop stops', () => {
    const options = parseSpendOptions({ burnRate: { costUsdPerMinute: 0.5, forMinutes: 1, action: 'stop' } });
    const scopes = session();
    addUsage(scopes, reply('a', 600_000, 0), flat, 0);
    expect(checkSpend(scopes, options, 0)).toMatchObject({ action: 'stop', reason: 'burn_rate' });
  });

  it('records the verdict as a context entry with its evidence', () => {
    const options = parseSpendOptions({ session: { maxCostUsd: 1 } });
    const scopes = session();
    addUsage(scopes, reply('a', 2_000_000), flat, 0);
    const entry = spendEntry(checkSpend(scopes, options, 0) as never, {
      taskId: 'claude:s1',
      detectedAt: 5,
      metadata: { sessionId: 's1' },
    });
    expect(entry).toMatchObject({
      entryType: 'decision',
      topic: 'spend_stop',
      relatedTasks: ['claude:s1'],
      metadata: {
        scope: 'session',
        reason: 'cap',
        caps: { maxCostUsd: 1 },
        warnAt: 0.8,
        detectedAt: 5,
        sessionId: 's1',
        spent: { tokens: 2_000_000, costUsd: 2 },
      },
    });
  });
});

describe('options', () => {
  it('are off unless a cap or an alarm is set', () => {
    expect(spendGuardOn(undefined)).toBe(false);
    expect(spendGuardOn({ warnAt: 0.5 })).toBe(false);
    expect(spendGuardOn({ task: { maxTokens: 1 } })).toBe(true);
    expect(spendGuardOn({ burnRate: { tokensPerMinute: 1 } })).toBe(true);
  });

  it.each([
    [{ session: { maxCostUsd: -1 } }, '"session.maxCostUsd"'],
    [{ session: { maxTokens: 1.5 } }, '"session.maxTokens"'],
    [{ warnAt: 1 }, '"warnAt"'],
    [{ burnRate: { forMinutes: 0 } }, '"burnRate.forMinutes"'],
    [{ burnRate: { action: 'kill' } }, '"burnRate.action"'],
    [{ prices: { m: { input: 1 } } }, '"prices.m.output"'],
    [{ sesion: {} }, 'unknown option "sesion" (did you mean "session"?)'],
  ])('reject %j naming the key', (input, named) => {
    expect(() => parseSpendOptions(input, 'spend')).toThrow(named);
  });

  it('are validated once: a guard given what parseSpendOptions returned keeps it as it is', () => {
    // The adapters validate at their own edge (before the pricing library loads) and hand the
    // result to SpendGuard, itself public: it must not parse the same options a second time.
    const resolved = parseSpendOptions({ session: { maxTokens: 10 } }, 'spend option');
    const guard = new SpendGuard(resolved, priceBook({}));
    expect(guard.options).toBe(resolved);
    expect(guard.observe([usageRecordOf({ inputTokens: 10, replyId: 'r1' })], 0)?.action).toBe('stop');
  });

  it('are frozen once validated, so that nothing changes them between the check and the guard', () => {
    const resolved = parseSpendOptions({ session: { maxCostUsd: 1 }, burnRate: { tokensPerMinute: 5 } });
    expect(() => {
      (resolved as { warnAt: number }).warnAt = 7;
    }).toThrow(TypeError);
    expect(() => {
      (resolved.session as { maxCostUsd: number }).maxCostUsd = -1;
    }).toThrow(TypeError);
  });

  it('given by hand to SpendGuard are still validated there, naming the key', () => {
    expect(() => new SpendGuard({ warnAt: 5 }, priceBook({}))).toThrow('"warnAt"');
    const copied = { ...parseSpendOptions({ session: { maxTokens: 10 } }), warnAt: 2 };
    expect(() => new SpendGuard(copied, priceBook({}))).toThrow('"warnAt"');
  });
});
