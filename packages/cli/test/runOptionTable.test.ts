import { readFileSync } from 'node:fs';
import { parseSpendOptions } from '@loopguard/core/spend';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { addRunOptions, resolveRunOptions, runOptionsSchema } from '../src/run/runOptions.js';
import { defaultTextOf, RUN_OPTIONS, type RunOptionSpec } from '../src/run/runOptionTable.js';

const docs = readFileSync(new URL('../../../docs/cli.md', import.meta.url), 'utf8');
const specs = RUN_OPTIONS as readonly RunOptionSpec[];

/** The rows of docs/cli.md's "Options, defaults and what they change" table. */
function documentedRows(): Array<{ flag: string; key: string | null; default: string }> {
  const section = docs.slice(docs.indexOf('### Options, defaults and what they change'));
  const rows = [...section.matchAll(/^\| `(--[a-z-]+)`(?: \(`(\w+)`\))? \| (.+?) \| .+ \|$/gm)];
  return rows.map((m) => ({
    flag: m[1] ?? '',
    key: m[2] ?? null,
    default: (m[3] ?? '').replaceAll('`', ''),
  }));
}

describe('the run options table', () => {
  it('docs/cli.md documents every option once, with its config key and default, in table order', () => {
    const expected = specs.map((spec) => ({
      flag: spec.flag.split(' ')[0] ?? '',
      key: spec.schema === null ? null : spec.key,
      default: defaultTextOf(spec),
    }));
    expect(documentedRows()).toEqual(expected);
  });

  it('commander gets every flag in table order, with its default in the help', () => {
    const command = addRunOptions(new Command('run'));
    expect(command.options.map((o) => o.flags)).toEqual(specs.map((s) => s.flag));
    for (const spec of specs) {
      const option = command.options.find((o) => o.flags === spec.flag);
      if (spec.default !== undefined)
        expect(option?.description).toContain(`(default: ${defaultTextOf(spec)})`);
      if (spec.choices !== undefined) expect(option?.argChoices).toEqual([...spec.choices]);
    }
  });

  it('the schema applies each default by parsing it like a given value', () => {
    const defaults = resolveRunOptions({}, {}, null) as Record<string, unknown>;
    for (const spec of specs) {
      if (spec.schema === null) continue;
      if (spec.default === undefined) expect(defaults[spec.key]).toBeUndefined();
      else expect(defaults[spec.key]).toEqual(spec.schema.parse(spec.default));
    }
    expect(defaults.maxRuntime).toBe(3_600_000);
    expect(defaults.cooldown).toBe(1_800_000);
    expect(defaults.requireFile).toEqual([]);
  });

  it('says what a cap is without the seed: --max-iterations 99 and --max-runtime 2h name the limit only', () => {
    expect(() => resolveRunOptions({ maxIterations: 99 }, {}, null)).toThrow(
      /must be an integer from 1 to 50/,
    );
    expect(() => resolveRunOptions({ maxIterations: 99 }, {}, null)).not.toThrow(/seed/);
    expect(() => resolveRunOptions({ maxRuntime: '2h' }, {}, null)).toThrow(/must be at most 60m/);
    expect(() => resolveRunOptions({ maxRuntime: '2h' }, {}, null)).not.toThrow(/seed/);
  });

  // qa53: every number flag says what it takes in words, as its help does (zod's own words
  // were "Invalid input: expected number, received NaN" for `--max-iterations x`)
  it.each([
    ['--max-iterations', 'x', 'must be an integer from 1 to 50'],
    ['--max-iterations', '0', 'must be an integer from 1 to 50'],
    ['--max-iterations', '1.5', 'must be an integer from 1 to 50'],
    ['--max-iterations', '99', 'must be an integer from 1 to 50'],
    ['--stagnation-threshold', 'x', 'must be an integer ≥ 1'],
    ['--max-tokens', '1.5', 'must be an integer ≥ 1'],
    ['--max-cost-usd', 'x', 'must be a number > 0'],
  ])('%s %s: %s', (flag, value, words) => {
    const key = flag.slice(2).replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
    expect(() => resolveRunOptions({}, { [key]: value, agentStream: 'claude' }, null)).toThrow(
      `${flag} ${words} (got "${value}")`,
    );
  });

  // code64: each bad spend option, one line naming it (the JSON text stands for what is inside it)
  it.each([
    ['{nope', '--spend must be JSON such as {"session":{"maxCostUsd":5}} (got "{nope")'],
    [
      '{"session":{"maxCostUsd":-1}}',
      '--spend session.maxCostUsd Too small: expected number to be >0 (got "{\\"session\\":{\\"maxCostUsd\\":-1}}")',
    ],
    ['{"sesion":{}}', '--spend Unrecognized key: "sesion" (got "{\\"sesion\\":{}}")'],
    [
      '{"session":{"maxCost":1}}',
      '--spend session Unrecognized key: "maxCost" (got "{\\"session\\":{\\"maxCost\\":1}}")',
    ],
    ['[1]', '--spend Invalid input: expected object, received array (got "[1]")'],
  ])('--spend %s: %s', (spend, message) => {
    expect(() => resolveRunOptions({}, { spend, agentStream: 'jsonl' }, null)).toThrow(message);
  });

  it('names a bad spend key of the configuration file with the file', () => {
    const file = '/repo/loopguard.config.yaml';
    expect(() => resolveRunOptions({ spend: { warnAt: 2 } }, { agentStream: 'jsonl' }, file)).toThrow(
      `spend warnAt (in ${file}) Too big: expected number to be <1 (got number 2)`,
    );
    expect(() => resolveRunOptions({ spend: 7 }, { agentStream: 'jsonl' }, file)).toThrow(
      `spend (in ${file}) Invalid input (got number 7)`,
    );
  });

  it("validates the run's spend options once, at the edge: --max-cost-usd and --max-tokens are in `spend`, which the guard takes as it is", () => {
    const options = resolveRunOptions(
      { spend: { session: { maxTokens: 10 }, warnAt: 0.5 } },
      { maxCostUsd: '2', agentStream: 'claude' },
      '/repo/loopguard.config.yaml',
    );
    expect(options.spend).toEqual({
      session: { maxTokens: 10, maxCostUsd: 2 },
      warnAt: 0.5,
      onUnknownPrice: 'warn',
    });
    expect(parseSpendOptions(options.spend)).toBe(options.spend);
    expect(resolveRunOptions({}, { maxTokens: '7', agentStream: 'claude' }, null).spend?.session).toEqual({
      maxTokens: 7,
    });
    expect(resolveRunOptions({}, {}, null).spend).toBeUndefined();
  });

  it('rejects a key that is not in the table', () => {
    expect(runOptionsSchema.safeParse({ config: 'x.yaml' }).success).toBe(false);
    expect(() => resolveRunOptions({ bogus: 1 }, {}, '/repo/loopguard.config.json')).toThrow(
      'unknown option bogus (in /repo/loopguard.config.json)',
    );
  });
});
