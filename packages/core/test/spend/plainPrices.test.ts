import { libraryCostOf, type PriceLibrary, type UsageRecord, usageRecordOf } from '@loopguard/core/spend';
import { calcPrice, findProvider } from '@pydantic/genai-prices';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

/** Every provider of the pinned library's data. */
const PROVIDERS = [
  'anthropic',
  'arcee',
  'avian',
  'aws',
  'azure',
  'baseten',
  'cerebras',
  'cloudflare',
  'cohere',
  'cursor',
  'deepseek',
  'doubleword',
  'fireworks',
  'github-copilot',
  'google',
  'groq',
  'minimax',
  'mistral',
  'modal',
  'moonshotai',
  'novita',
  'openai',
  'openrouter',
  'ovhcloud',
  'perplexity',
  'quicksilverpro',
  'together',
  'typesafe',
  'voyageai',
  'x-ai',
  'zai',
  'zhipuai',
];

/** Each model of the library by its id, with whether its prices change with the time. */
const MODELS = PROVIDERS.flatMap((id) => {
  const provider = findProvider({ providerId: id });
  if (provider === undefined) throw new Error(`no provider ${id} in the library`);
  return provider.models.map((model) => ({ name: model.id, dated: Array.isArray(model.prices) }));
});

/** What the library itself says a record costs (its error or no price: `undefined`). */
function libraryPrice(record: UsageRecord): number | undefined {
  try {
    const result = calcPrice(
      {
        input_tokens: record.inputTokens + record.cacheCreationTokens + record.cacheReadTokens,
        cache_write_tokens: record.cacheCreationTokens,
        cache_read_tokens: record.cacheReadTokens,
        output_tokens: record.outputTokens,
      },
      record.model as string,
      record.at === undefined ? undefined : { timestamp: new Date(record.at) },
    );
    return result === null ? undefined : result.total_price;
  } catch {
    return undefined;
  }
}

/** `libraryCostOf` over the library, counting the library's calls. */
function counted(): { costOf: ReturnType<typeof libraryCostOf>; calls: () => number } {
  let calls = 0;
  const costOf = libraryCostOf({
    calcPrice: (...args: Parameters<PriceLibrary['calcPrice']>) => {
      calls++;
      return calcPrice(...args);
    },
  });
  return { costOf, calls: () => calls };
}

const count = fc.oneof(
  { weight: 8, arbitrary: fc.nat(3_000_000) },
  { weight: 1, arbitrary: fc.constantFrom(0, 1, -1, 2 ** 40, 2 ** 53 + 2) },
  { weight: 1, arbitrary: fc.double({ min: 0, max: 1e6, noNaN: true }) },
);

describe('the pricing library, one table per model', () => {
  it('asks the library once for a model whose prices hold at every time, and prices each reply as it does', () => {
    const { costOf, calls } = counted();
    for (let i = 0; i < 50; i++) {
      const record = usageRecordOf({
        model: 'claude-sonnet-4-5-20250929',
        inputTokens: 1000 + i,
        outputTokens: 90 + i,
        cacheCreationTokens: 40 * i,
        cacheReadTokens: 20_000 + 700 * i,
        at: Date.UTC(2026, 9, 12) + i * 4000,
      });
      expect(Object.is(costOf(record), libraryPrice(record))).toBe(true);
    }
    // at a tier's start and either side of it (the library's tier is over its start)
    for (const inputTokens of [199_999, 200_000, 200_001]) {
      const record = usageRecordOf({ model: 'claude-sonnet-4-5-20250929', inputTokens, outputTokens: 7 });
      expect(Object.is(costOf(record), libraryPrice(record))).toBe(true);
    }
    expect(calls()).toBe(1);
  });

  it('asks the library each time for a model whose price changes with the date', () => {
    const dated = MODELS.find((model) => model.dated);
    expect(dated).toBeDefined();
    const { costOf, calls } = counted();
    for (let i = 0; i < 5; i++) {
      const record = usageRecordOf({ model: dated?.name, inputTokens: 1000, outputTokens: 10, at: i * 1e11 });
      expect(Object.is(costOf(record), libraryPrice(record))).toBe(true);
    }
    expect(calls()).toBe(5);
  });

  it('gives every model of the library the library’s own price, to the last bit', () => {
    expect(MODELS.length).toBeGreaterThan(500);
    const { costOf, calls } = counted();
    const runs = 40;
    for (const { name } of MODELS) {
      fc.assert(
        fc.property(
          count,
          count,
          count,
          count,
          fc.integer({ min: 0, max: 4e12 }),
          (input, output, write, read, at) => {
            const record: UsageRecord = {
              model: name,
              inputTokens: input,
              outputTokens: output,
              cacheCreationTokens: write,
              cacheReadTokens: read,
              at,
            };
            const cost = costOf(record);
            expect(Object.is(cost, libraryPrice(record)), `${name} ${JSON.stringify(record)}: ${cost}`).toBe(
              true,
            );
          },
        ),
        { numRuns: runs },
      );
    }
    // most replies were priced from the kept tables, not by the library
    expect(calls()).toBeLessThan((MODELS.length * runs) / 2);
  });
});
