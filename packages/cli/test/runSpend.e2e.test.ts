import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openLoopGuardDatabase } from '@loopguard/sqlite';
import { describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../src/terminal/exitCodes.js';
import { loopguard, stored, tempRepo } from './runHelpers.js';

const run = (...args: string[]) => ['run', '--prompt-file', 'PROMPT.md', ...args];
const line = (event: object) => `echo '${JSON.stringify(event)}'`;

/** A repository whose agent keeps each prompt (`<dir>.prompt-N`) and then runs `body` with $N its call number. */
function repo(body: string): string {
  const { dir, counter } = tempRepo('');
  writeFileSync(
    join(dir, 'agent.sh'),
    `#!/bin/sh\nN=$(( $(cat ${counter}) + 1 ))\necho $N > ${counter}\ncat > ${dir}.prompt-$N\necho $N > progress-$N.txt\n${body}\n`,
  );
  chmodSync(join(dir, 'agent.sh'), 0o755);
  return dir;
}

/** The spend entries in the run's state file, oldest first. */
function spendEntries(dir: string) {
  const database = openLoopGuardDatabase(join(dir, '.loopguard', 'state.db'), { readonly: true });
  try {
    return (
      database.db
        .prepare(
          "SELECT topic, content, related_tasks, metadata FROM context_entries WHERE topic LIKE 'spend_%' ORDER BY id",
        )
        .all() as Array<{ topic: string; content: string; related_tasks: string; metadata: string }>
    ).map((e) => ({ ...e, related_tasks: JSON.parse(e.related_tasks), metadata: JSON.parse(e.metadata) }));
  } finally {
    database.close();
  }
}

/** A Claude Code stream-json reply of 100,000 input tokens on claude-sonnet-4-5 ($0.30), written as two content blocks. */
function claudeReply(id: string): string {
  const message = (text: string) => ({
    type: 'assistant',
    message: {
      id,
      model: 'claude-sonnet-4-5',
      role: 'assistant',
      content: [{ type: 'text', text }],
      usage: { input_tokens: 100_000, output_tokens: 0 },
    },
  });
  return `${line(message(`working on ${id}`))}\n${line(message(`still on ${id}`))}`;
}

describe('loopguard run: the spend guard', () => {
  it('claude stream: counts each reply once, stops mid-run at --max-cost-usd, exit 6 (not 5, the budget of iterations), entries in SQLite', async () => {
    // four replies in the first iteration, then the agent would go on for minutes
    const replies = ['a', 'b', 'c', 'd'].map((r) => claudeReply(`msg_${r}`));
    const dir = repo(`${replies.join('\n')}\nsleep 300`);
    const result = await loopguard(
      dir,
      run('--agent-stream', 'claude', '--max-cost-usd', '1', '--iteration-timeout', '1m', '--', './agent.sh'),
    );
    expect(result.code, result.stderr).toBe(EXIT_CODES.spendStopped);
    const { run: r, iterations } = stored(dir);
    expect(iterations).toHaveLength(1);
    expect(r).toMatchObject({
      status: 'budget_spent',
      reason: expect.stringContaining('this run reached its budget ($1.20 of $1.00)'),
    });
    expect(spendEntries(dir)).toMatchObject([
      { topic: 'spend_warning', metadata: { scope: 'session', reason: 'share', spent: { replies: 3 } } },
      {
        topic: 'spend_stop',
        metadata: { scope: 'session', reason: 'cap', spent: { replies: 4, costUsd: 1.2 } },
      },
    ]);
    expect(result.stderr).toContain('you have spent $0.90 of $1.00 on this run (90 %)');
  });

  it("jsonl: a warning goes into the next iteration's prompt; --max-tokens stops the run between iterations", async () => {
    const dir = repo(`${line({ id: 'r$N', usage: { input_tokens: 45 } }).replace('$N', "'$N'")}`);
    const result = await loopguard(
      dir,
      run('--agent-stream', 'jsonl', '--max-tokens', '100', '--', './agent.sh'),
    );
    expect(result.code, result.stderr).toBe(EXIT_CODES.spendStopped);
    expect(stored(dir).iterations).toHaveLength(3);
    expect(readFileSync(`${dir}.prompt-2`, 'utf8')).not.toContain('loopguard: you have used');
    expect(readFileSync(`${dir}.prompt-3`, 'utf8')).toContain(
      'loopguard: you have used 90 of 100 tokens on this run (90 %)',
    );
    expect(spendEntries(dir).map((e) => e.topic)).toEqual(['spend_warning', 'spend_stop']);
  });

  it('codex: the task budget of the configuration file counts turn.completed usage (tokens only: no model named)', async () => {
    const dir = repo(
      line({
        type: 'turn.completed',
        usage: { input_tokens: 40, cached_input_tokens: 30, output_tokens: 20 },
      }),
    );
    writeFileSync(join(dir, 'loopguard.config.yaml'), 'spend:\n  task:\n    maxTokens: 100\n  warnAt: 0.5\n');
    const result = await loopguard(dir, run('--agent-stream', 'codex', '--task', 'T1', '--', './agent.sh'));
    expect(result.code, result.stderr).toBe(EXIT_CODES.spendStopped);
    const entries = spendEntries(dir);
    expect(entries.map((e) => [e.topic, e.metadata.scope, e.related_tasks])).toEqual([
      ['spend_warning', 'task', ['T1']],
      ['spend_stop', 'task', ['T1']],
    ]);
    expect(entries[1]?.metadata.spent).toMatchObject({
      tokens: 120,
      inputTokens: 20,
      cacheReadTokens: 60,
      outputTokens: 40,
    });
    expect(entries[1]?.content).toContain('task T1 reached its budget (120 of 100 tokens)');
  });

  it('jsonl: a model without a price under a dollar budget is told at its first reply; onUnknownPrice: stop stops, exit 6', async () => {
    const body = line({ id: 'r$N', model: 'in-house-model', usage: { input_tokens: 113_300 } }).replace(
      '$N',
      "'$N'",
    );
    const warned = repo(body);
    const result = await loopguard(
      warned,
      run('--agent-stream', 'jsonl', '--max-cost-usd', '0.05', '--max-iterations', '2', '--', './agent.sh'),
    );
    expect(result.code, result.stderr).toBe(EXIT_CODES.budgetSpent); // --max-iterations, not the spend guard
    expect(readFileSync(`${warned}.prompt-2`, 'utf8')).toContain(
      'loopguard: this run cannot be held to its budget of $0.05: the cost of 113,300 tokens is unknown (no price for in-house-model)',
    );
    expect(spendEntries(warned)).toMatchObject([
      { topic: 'spend_warning', metadata: { reason: 'unknown_price' } },
    ]);
    const stopped = repo(body);
    const stop = await loopguard(
      stopped,
      run(
        '--agent-stream',
        'jsonl',
        '--spend',
        '{"session":{"maxCostUsd":0.05},"onUnknownPrice":"stop"}',
        '--',
        './agent.sh',
      ),
    );
    expect(stop.code, stop.stderr).toBe(6);
    expect(stored(stopped).run).toMatchObject({
      status: 'budget_spent',
      reason: expect.stringContaining('loopguard stopped it (spend.onUnknownPrice: stop)'),
    });
  });

  it('a NaN in the configuration file is reported as NaN, naming its key', async () => {
    const dir = repo('true');
    writeFileSync(join(dir, 'loopguard.config.yaml'), 'spend:\n  session:\n    maxCostUsd: .nan\n');
    const result = await loopguard(dir, run('--agent-stream', 'jsonl', '--', './agent.sh'));
    expect(result).toMatchObject({ code: EXIT_CODES.usage });
    expect(result.stderr).toMatch(/^loopguard: spend session\.maxCostUsd \(in .*\) .*\(got number NaN\)$/);
  });

  it('refuses a budget without --agent-stream, and a --spend that is not valid, with one line and exit 2', async () => {
    const dir = repo('true');
    expect(await loopguard(dir, run('--max-tokens', '10', '--', './agent.sh'))).toMatchObject({
      code: EXIT_CODES.usage,
      stderr: "loopguard: the spend guard reads the agent's usage from its output: give --agent-stream",
    });
    expect(
      await loopguard(
        dir,
        run('--agent-stream', 'jsonl', '--spend', '{"session":{"maxCostUsd":-1}}', '--', './agent.sh'),
      ),
    ).toMatchObject({
      code: EXIT_CODES.usage,
      stderr: expect.stringContaining('--spend session.maxCostUsd'),
    });
    expect(
      await loopguard(dir, run('--agent-stream', 'jsonl', '--spend', '{nope', '--', './agent.sh')),
    ).toMatchObject({
      code: EXIT_CODES.usage,
      stderr: expect.stringContaining('--spend must be JSON'),
    });
    expect(
      await loopguard(dir, run('--agent-stream', 'jsonl', '--max-cost-usd', '0', '--', './agent.sh')),
    ).toMatchObject({
      code: EXIT_CODES.usage,
      stderr: expect.stringContaining('--max-cost-usd must be a number > 0'),
    });
  });
});
