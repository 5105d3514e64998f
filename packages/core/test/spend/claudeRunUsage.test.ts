import {
  ClaudeRunUsage,
  loadLibraryCost,
  priceBook,
  SpendLedger,
  type UsageRecord,
  usageStream,
} from '@loopguard/core/spend';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

// The shapes Claude Code 2.1.330 emits (`claude -p --output-format stream-json --verbose`, recorded
// offline against the scripted API: 1000 input, 50 cache-read and 1 output token at each reply's
// start, 12 output tokens at its end). Each result's `model_usage_since_last_result` covers the
// requests since the process's previous result, also on a resumed session, whose `modelUsage`,
// `usage` of older releases and `total_cost_usd` differ as recorded.
const SONNET = 'claude-sonnet-4-5';
const init = { type: 'system', subtype: 'init', session_id: 's1' };
const assistant = (id: string, model = SONNET, output = 1, parent: string | null = null) => ({
  type: 'assistant',
  session_id: 's1',
  parent_tool_use_id: parent,
  message: {
    id,
    model,
    content: [{ type: 'text', text: 'x' }],
    usage: { input_tokens: 1000, output_tokens: output, cache_read_input_tokens: 50 },
  },
});
const sinceLast = (replies: number) => ({
  inputTokens: 1000 * replies,
  outputTokens: 12 * replies,
  cacheReadInputTokens: 50 * replies,
  cacheCreationInputTokens: 0,
  costUSD: 0.003195 * replies,
});
/** A result of `replies` replies since the last one; `session` counts the resumed session's invocations. */
const result = (
  replies: number,
  uuid?: string,
  session = 1,
  models: Record<string, number> = { [SONNET]: replies },
) => ({
  type: 'result',
  subtype: 'success',
  session_id: 's1',
  ...(uuid === undefined ? {} : { uuid }),
  usage: { input_tokens: 1000 * replies, output_tokens: 12 * replies, cache_read_input_tokens: 50 * replies },
  total_cost_usd: 0.003195 * replies * session,
  modelUsage: { [SONNET]: sinceLast(replies * session) },
  model_usage_since_last_result: Object.fromEntries(
    Object.entries(models).map(([m, n]) => [m, sinceLast(n)]),
  ),
});
/** A result of an older Claude Code: `usage` only. */
const olderResult = (replies: number) => {
  const { model_usage_since_last_result: _, ...rest } = result(replies);
  return rest;
};

/** Every event through one reader into one ledger: what the ledger counted. */
function count(events: unknown[], costOf = priceBook({ 'claude-sonnet-4-5': { input: 3, output: 15 } })) {
  const usage = new ClaudeRunUsage();
  const ledger = new SpendLedger();
  const records: UsageRecord[] = [];
  for (const event of events) {
    for (const record of usage.event(event, 0)) {
      records.push(record);
      ledger.add(record, costOf, 0);
    }
  }
  return { totals: ledger.totals, records };
}

describe('ClaudeRunUsage: the replies, then what the result adds', () => {
  it('counts the final output tokens of an invocation whose replies report their start (one reply per content block)', () => {
    const { totals, records } = count([
      init,
      assistant('msg_1'),
      assistant('msg_1'),
      assistant('msg_2'),
      assistant('msg_3'),
      result(3, 'r1'),
    ]);
    expect(totals).toMatchObject({ replies: 3, inputTokens: 3000, outputTokens: 36, cacheReadTokens: 150 });
    // the adjustment is priced as the replies' model: $3 / $15 per million (cache reads $0.30)
    expect(records.at(-1)).toEqual({
      model: 'claude-sonnet-4-5',
      at: 0,
      inputTokens: 0,
      outputTokens: 33,
      cacheCreationTokens: 0,
      cacheReadTokens: 0,
      adjustment: true,
    });
    expect(totals.costUsd).toBeCloseTo(3000 * 3e-6 + 36 * 15e-6 + 150 * 0.3e-6, 10);
  });

  it('matches the cost Claude Code reports with the pricing library', async () => {
    const costOf = priceBook({}, await loadLibraryCost());
    const { totals } = count([init, assistant('msg_1'), assistant('msg_2'), result(2, 'r1')], costOf);
    expect(totals.costUsd).toBeCloseTo(result(2).total_cost_usd, 9);
  });

  it('a background subagent (recorded): its replies are in the first result, which comes after the next turn began; the second adds nothing', () => {
    const { totals } = count([
      init,
      assistant('msg_1'),
      assistant('msg_2'),
      assistant('msg_3', SONNET, 1, 'toolu_1'),
      assistant('msg_4', SONNET, 1, 'toolu_1'),
      { ...init, uuid: 'init-2' },
      assistant('msg_5'),
      { ...result(5, 'r1'), usage: { input_tokens: 2000, output_tokens: 24 } },
      { ...result(0, 'r2'), usage: { input_tokens: 1000, output_tokens: 12 } },
    ]);
    expect(totals).toMatchObject({ replies: 5, inputTokens: 5000, outputTokens: 60, cacheReadTokens: 250 });
  });

  it("older releases: the result's usage, priced as the replies' one model", () => {
    const { totals, records } = count([
      assistant('msg_1'),
      assistant('msg_2'),
      olderResult(2),
      olderResult(2),
    ]);
    expect(totals).toMatchObject({ replies: 2, inputTokens: 2000, outputTokens: 24, unpricedTokens: 0 });
    expect(records.at(-1)).toMatchObject({ model: SONNET, outputTokens: 22, adjustment: true });
  });

  it('a side request no reply showed (another model) is counted at its price; a model named otherwise never counts twice', () => {
    const costOf = priceBook({
      [SONNET]: { input: 3, output: 15 },
      'claude-haiku-4-5': { input: 1, output: 5 },
    });
    const side = count(
      [assistant('msg_1'), result(1, 'r1', 1, { [SONNET]: 1, 'claude-haiku-4-5': 1 })],
      costOf,
    );
    expect(side.totals).toMatchObject({ replies: 1, inputTokens: 2000, outputTokens: 24, unpricedTokens: 0 });
    expect(side.totals.costUsd).toBeCloseTo(
      1000 * 3e-6 + 12 * 15e-6 + 50 * 0.3e-6 + 1000 * 1e-6 + 12 * 5e-6 + 50 * 0.1e-6,
      10,
    );
    // the reply names the dated model, the result its alias: the reply's counts cover the alias's first
    const dated = count([assistant('msg_1', `${SONNET}-20250929`), result(1, 'r1')]);
    expect(dated.totals).toMatchObject({ inputTokens: 1000, outputTokens: 12, cacheReadTokens: 50 });
  });

  it('a resumed session: each invocation is reconciled with its own result, not the session’s modelUsage', () => {
    const { totals } = count([
      init,
      assistant('msg_1'),
      assistant('msg_2'),
      result(2, 'r1'),
      init,
      assistant('msg_3'),
      result(1, 'r2', 2),
      assistant('msg_4'),
      assistant('msg_5'),
      result(2, 'r3', 3),
    ]);
    expect(totals).toMatchObject({ replies: 5, inputTokens: 5000, outputTokens: 60, cacheReadTokens: 250 });
  });

  it('a result reported again (the same uuid, or the same text without one) adds nothing, also later', () => {
    const events = [init, assistant('msg_1'), result(1, 'r1'), result(1, 'r1')];
    expect(count(events).totals).toMatchObject({ replies: 1, outputTokens: 12 });
    const late = [...events, assistant('msg_2'), result(1, 'r1'), result(1, 'r2'), result(1, 'r1')];
    expect(count(late).totals).toMatchObject({ replies: 2, outputTokens: 24 });
    const older = olderResult(1);
    const noUuid = [assistant('msg_1'), older, older, assistant('msg_2'), older, olderResult(1)];
    expect(count(noUuid).totals).toMatchObject({ replies: 2, outputTokens: 13 }); // the second reply's result never came
  });

  it('a reply that already reports its final count, a result below the replies, or a bad result adds nothing', () => {
    expect(count([assistant('msg_1', 'm', 12), result(1, 'r1')]).records).toHaveLength(1);
    expect(count([assistant('msg_1'), assistant('msg_2'), result(1, 'r1')]).totals).toMatchObject({
      inputTokens: 2000,
      outputTokens: 12,
    });
    const bad = [
      null,
      'result',
      { type: 'result' },
      { type: 'result', usage: 'many' },
      { type: 'result', usage: { output_tokens: -5, input_tokens: Number.NaN } },
      { type: 'assistant', message: { usage: null } },
    ];
    expect(count([assistant('msg_1'), ...bad]).totals).toMatchObject({ replies: 1, tokens: 1051 });
  });

  it('an unknown model is counted in tokens, its cost unknown; so is the usage of an older release after replies of two models', () => {
    const unknown = count([assistant('msg_1', 'in-house'), result(1, 'r1', 1, { 'in-house': 1 })]);
    expect(unknown.totals).toMatchObject({
      outputTokens: 12,
      costUsd: 0,
      unpricedTokens: 1062,
      unpricedModels: ['in-house'],
    });
    const { totals } = count([assistant('msg_1'), assistant('msg_2', 'claude-haiku-4-5'), olderResult(2)]);
    expect(totals).toMatchObject({
      outputTokens: 24,
      unpricedTokens: 1051 + 22,
      unpricedModels: ['claude-haiku-4-5', '(no model named)'],
    });
  });

  it('usageStream("claude") reads the same way, one reader per stream', () => {
    const read = usageStream('claude');
    const records = [init, assistant('msg_1'), result(1, 'r1')].flatMap((e) => read(e, 5));
    expect(records.map((r) => r.outputTokens)).toEqual([1, 11]);
  });

  it('property: however replies and results are repeated, the output counted is what the results say', () => {
    const invocation = fc.record({
      replies: fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 5 }), // events per reply
      results: fc.integer({ min: 1, max: 3 }), // the result, reported this often
      withInit: fc.boolean(),
      withUuid: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(invocation, { minLength: 1, maxLength: 5 }), (invocations) => {
        let id = 0;
        const events: unknown[] = [];
        let expected = 0;
        invocations.forEach((inv, n) => {
          if (inv.withInit) events.push(init);
          for (const times of inv.replies) {
            id++;
            for (let i = 0; i < times; i++) events.push(assistant(`msg_${id}`));
          }
          for (let i = 0; i < inv.results; i++)
            events.push(result(inv.replies.length, inv.withUuid ? `r${n}` : undefined, n + 1));
          expected += inv.replies.length;
        });
        expect(count(events).totals).toMatchObject({
          replies: expected,
          inputTokens: 1000 * expected,
          outputTokens: 12 * expected,
        });
      }),
    );
  });
});
