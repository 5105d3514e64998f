import { readSync } from 'node:fs';
import { recordOf } from '@loopguard/core/internal';
import { CodexRolloutSteps, type Step } from '@loopguard/core/steps';
import { withRegularFile } from '../files/regularFile.js';
import { MAX_TRANSCRIPT_READ_BYTES } from './transcriptUsage.js';

/** The steps a Codex rollout gained since an offset, and where the next read starts. */
export interface RolloutSteps {
  /** The steps read from the rollout, in order. */
  steps: Step[];
  /** The `call_id` of the call each step belongs to (same index as `steps`); `undefined` for a message. */
  callIds: Array<string | undefined>;
  /** The byte offset read up to: the next read starts there. */
  offset: number;
}

/** The `response_item`s that open a call. */
const CALLS = new Set(['function_call', 'custom_tool_call', 'local_shell_call']);

/**
 * The steps of the calls and messages Codex wrote to its rollout (`transcript_path`) since
 * `offset`, read by Codex's one translation ({@link CodexRolloutSteps}, as `scan` reads the whole
 * file): a call's output there says whether the command failed (`Process exited with code 1`),
 * which the hook event does not. The read stops before the call `untilCallId` opens (the call the
 * event is about: its output is not written yet, and a replay must not see later calls); without
 * it (the end of a turn) it reads to the end and ends the turn's held text. Only whole lines are
 * read; a file shorter than `offset` (rewritten) is read from the start.
 * @throws Error naming the path when it is not a regular file or cannot be read (the hook fails open).
 */
export function readRolloutSteps(
  path: string,
  offset: number,
  untilCallId: string | undefined,
  maxBytes = MAX_TRANSCRIPT_READ_BYTES,
): RolloutSteps {
  // without waiting: a FIFO given as the rollout must not hang the hook
  const read = withRegularFile(
    path,
    'rollout',
    (fd, stat): RolloutSteps | { text: string; start: number } => {
      const start = offset <= stat.size ? offset : 0;
      const length = Math.min(stat.size - start, maxBytes);
      if (length <= 0) return { steps: [], callIds: [], offset: start };
      const buffer = Buffer.alloc(length);
      const bytes = readSync(fd, buffer, 0, length, start);
      const end = buffer.lastIndexOf(10, bytes - 1);
      if (end === -1) return { steps: [], callIds: [], offset: bytes === maxBytes ? start + bytes : start };
      return { text: buffer.toString('utf8', 0, end + 1), start };
    },
  );
  if ('steps' in read) return read;
  const { text, start } = read;
  const translation = new CodexRolloutSteps();
  const steps: Step[] = [];
  const callIds: Array<string | undefined> = [];
  const add = (more: Step[], callId: unknown) => {
    steps.push(...more);
    for (const _ of more) callIds.push(typeof callId === 'string' ? callId : undefined);
  };
  // the event's own call is the last one opened under its id: an earlier call under the same id
  // (a provider that lets the model write call ids) is read as the call it was (trust50)
  const items: Array<{ item: Record<string, unknown> | undefined; next: number }> = [];
  let own = -1;
  for (let at = 0; at < text.length; ) {
    const next = text.indexOf('\n', at) + 1;
    const line = text.slice(at, next);
    const item = line.includes('"response_item"') ? itemOf(line) : undefined;
    if (
      untilCallId !== undefined &&
      item !== undefined &&
      CALLS.has(String(item.type)) &&
      item.call_id === untilCallId
    )
      own = items.length;
    items.push({ item, next });
    at = next;
  }
  let at = 0;
  for (const [i, { item, next }] of items.entries()) {
    if (i === own) break;
    if (item !== undefined) {
      // a held message is given when the next item comes: it belongs to no call
      const found = translation.item(item);
      add(found, found[0]?.type === 'message' ? undefined : item.call_id);
    }
    at = next;
  }
  if (untilCallId === undefined) add(translation.end(), undefined);
  return { steps, callIds, offset: start + Buffer.byteLength(text.slice(0, at)) };
}

function itemOf(line: string): Record<string, unknown> | undefined {
  try {
    const record = recordOf(JSON.parse(line));
    return record?.type === 'response_item' ? recordOf(record.payload) : undefined;
  } catch {
    return undefined;
  }
}
