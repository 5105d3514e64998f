import { readSync } from 'node:fs';
import { recordOf } from '@loopguard/core/internal';
import { ClaudeCodeSteps, type Step } from '@loopguard/core/steps';
import { withRegularFile } from '../files/regularFile.js';
import { MAX_TRANSCRIPT_READ_BYTES } from './transcriptUsage.js';

/**
 * The call `callId` of a Claude Code session as its transcript (`transcript_path`) holds it: its
 * action and its result, read by Claude Code's one translation ({@link ClaudeCodeSteps}, as `scan`
 * and the stream read them), what the model received; `[]` while the transcript holds no result
 * of it (a call still running, or not written yet). The call's first `tool_use` under that id and
 * the first result after it are its own; the other side's records (a subagent's, `isSidechain`)
 * are not. Only whole lines within the first `maxBytes` bytes are read: the call read is a
 * session's first (`Memory.startedCall`).
 * @throws Error naming the path when it is not a regular file or cannot be read.
 */
export function readClaudeCall(path: string, callId: string, maxBytes = MAX_TRANSCRIPT_READ_BYTES): Step[] {
  // without waiting: a FIFO given as the transcript must not hang the hook
  const text = withRegularFile(path, 'transcript', (fd, stat) => {
    const buffer = Buffer.alloc(Math.min(stat.size, maxBytes));
    const bytes = readSync(fd, buffer, 0, buffer.length, 0);
    return buffer.toString('utf8', 0, buffer.lastIndexOf(10, bytes - 1) + 1);
  });
  const id = JSON.stringify(callId);
  const translation = new ClaudeCodeSteps();
  let action: Step | undefined;
  for (const line of text.split('\n')) {
    // most lines are other calls': parse only those that name this one
    if (!line.includes(id)) continue;
    const record = recordOf(parsed(line));
    if (record === undefined || record.isSidechain === true) continue;
    const message = recordOf(record.message);
    const blocks = Array.isArray(message?.content) ? message.content.map(recordOf) : [];
    if (action === undefined && record.type === 'assistant') {
      const use = blocks.find((block) => block?.type === 'tool_use' && block.id === callId);
      if (use !== undefined) action = translation.assistant({ ...message, content: [use] })[0];
    } else if (action !== undefined && record.type === 'user') {
      const result = blocks.find((block) => block?.type === 'tool_result' && block.tool_use_id === callId);
      const observation = result === undefined ? undefined : translation.user({ content: [result] })[0];
      if (observation !== undefined) return [action, observation];
    }
  }
  return [];
}

function parsed(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}
