import { describe, expect, it } from 'vitest';
import type { HookEvent } from '../src/hook/hookEvent.js';
import { inMemorySession } from './hookHelpers.js';

/**
 * A round that did not act on what it read, through the command hook's events: the detector is
 * restored from the session's stored snapshot at every event, so a read's names must survive it.
 */
describe('guardSession: a round that did not act on what it read is stale', () => {
  const session = inMemorySession();
  const call = (tool: string, input: unknown, output: string) => session.call(tool, input, output);
  /** The replies to `events` that were not silent. */
  const drive = (events: HookEvent[]) => session.drive(events).replies.filter((reply) => reply !== 'silent');
  /** A look at another helper, a change to the place changed before, the repro's same answer. */
  const round = (n: number, acting: boolean) => [
    ...call(
      'Read',
      { file_path: `/p/src/helpers_${n}.py` },
      `     1\tdef fetch_rows_${n}(query):\n     2\t    return query.rows_${n}\n`,
    ),
    ...call(
      'Edit',
      {
        file_path: '/p/src/parse.py',
        old_string: `limit = ${n}`,
        new_string: acting ? `limit = fetch_rows_${n}(${n})` : `limit = ${n + 1}`,
      },
      'The file /p/src/parse.py has been updated.',
    ),
    ...call('Bash', { command: 'python3 reproduce.py' }, 'same wrong answer: 3\n'),
  ];
  const first = call('Bash', { command: 'python3 reproduce.py' }, 'same wrong answer: 3\n');

  it('changes that write none of the names the reads showed: nudged at the third round, stopped at the fourth', () => {
    expect(drive([...first, ...[0, 1, 2, 3].flatMap((n) => round(n, false))])).toEqual(['nudge', 'stop']);
  });

  it('changes that call what each read showed acted on it: no nudge in three rounds', () => {
    expect(drive([...first, ...[0, 1, 2].flatMap((n) => round(n, false))])).toEqual(['nudge']);
    expect(drive([...first, ...[0, 1, 2].flatMap((n) => round(n, true))])).toEqual([]);
  });
});
