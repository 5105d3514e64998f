import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { completionClaimed, infrastructureOf, structuredResultOf } from '../src/run/agentResult.js';
import { questionOf } from '../src/run/agentSignals.js';
import { EXIT_CODES } from '../src/terminal/exitCodes.js';
import { loopguard, stored, tempRepo } from './runHelpers.js';

const fixture = (name: string) =>
  new URL(`./fixtures/gemini/gemini-cli-0.61.0-${name}.jsonl`, import.meta.url).pathname;
const gemini = (name: string) => readFileSync(fixture(name), 'utf8');
const claude = (result: Record<string, unknown>) =>
  `{"type":"system","subtype":"init"}\n${JSON.stringify({ type: 'result', ...result })}\n`;

describe("each agent's result line read by its own format", () => {
  it("Gemini CLI: the final text is the assistant's streamed pieces before the result, tokens from stats", () => {
    const result = structuredResultOf(gemini('completed'));
    expect(result).toEqual({
      subtype: 'success',
      isError: false,
      text: 'All done. <promise>COMPLETE</promise>',
      numTurns: null,
      costUsd: null,
      tokens: { input: 20, output: 10 },
      permissionDenials: [],
    });
    // the promise was split across two pieces: only the joined text shows it
    expect(completionClaimed(gemini('completed'), result, '<promise>COMPLETE</promise>')).toBe(true);
  });

  it('Gemini CLI: a failed result is an error whose message is judged (a 429 is infrastructure)', () => {
    const output = gemini('rate-limited');
    const result = structuredResultOf(output);
    expect(result).toMatchObject({ subtype: 'unknown', isError: true });
    expect(result?.text).toContain('"code":429');
    expect(infrastructureOf(output, result, 0).kind).toBe('rate_limit');
  });

  it('Gemini CLI: a question the final text ends with is found', () => {
    const output = gemini('completed').replace(
      'LETE</promise>',
      'LETE</promise>\\nWhich config should I keep?',
    );
    expect(questionOf(output, structuredResultOf(output))).toBe('Which config should I keep?');
  });

  it("Claude Code: subtype, is_error, result, usage, cost and denials; an error's text is judged", () => {
    expect(
      structuredResultOf(
        claude({
          subtype: 'success',
          is_error: false,
          result: 'done',
          num_turns: 3,
          total_cost_usd: 0.5,
          usage: { input_tokens: 7, output_tokens: 2 },
          permission_denials: [{ tool_name: 'Bash' }],
        }),
      ),
    ).toEqual({
      subtype: 'success',
      isError: false,
      text: 'done',
      numTurns: 3,
      costUsd: 0.5,
      tokens: { input: 7, output: 2 },
      permissionDenials: ['Bash'],
    });
    const failed = claude({ subtype: 'success', is_error: true, result: 'API Error: 429 Too Many Requests' });
    expect(infrastructureOf(failed, structuredResultOf(failed), 0).kind).toBe('rate_limit');
  });

  it('no result line: null, and the tail of the output is judged', () => {
    expect(structuredResultOf('plain output\n{"type":"message"}\n')).toBeNull();
    expect(infrastructureOf('Error: 429 Too Many Requests', null, 0).kind).toBe('rate_limit');
  });

  it('a run of a Gemini agent whose final answer carries the promise in two pieces completes', async () => {
    const { dir } = tempRepo(`echo x >> w.txt\ncat ${fixture('completed')}`);
    const result = await loopguard(dir, [
      'run',
      '--prompt-file',
      'PROMPT.md',
      '--max-iterations',
      '2',
      '--',
      './agent.sh',
    ]);
    expect(result.code, result.stderr).toBe(EXIT_CODES.ok);
    expect(stored(dir).run).toMatchObject({ status: 'completed', iteration: 1 });
  });
});
