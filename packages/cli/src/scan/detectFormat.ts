import { readFileSync, statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { ClaudeTranscriptParser } from './ClaudeTranscriptParser.js';
import { CodexRolloutParser } from './CodexRolloutParser.js';
import { GeminiChatParser } from './GeminiChatParser.js';
import { geminiFolder, geminiParentSession, geminiProjectRootFile } from './geminiFolder.js';
import { StreamParser } from './StreamParser.js';
import type { TranscriptParser } from './TranscriptParser.js';

const CODEX_RECORDS = new Set(['session_meta', 'response_item', 'event_msg', 'turn_context']);
const STEP_TYPES = new Set(['action', 'observation', 'message']);
const CODEX_EVENTS = new Set(['thread.started', 'turn.started', 'item.started', 'item.completed']);

/** Longest `.project_root` read, bytes (a path). */
const MAX_PROJECT_ROOT_BYTES = 4096;

/**
 * The project of a Gemini chat: the path Gemini CLI (0.61.0) keeps in `tmp/<name>/.project_root`
 * (the session's working directory, as the hooks and `status` name the project), else the folder's
 * name ({@link geminiFolder}).
 */
export function geminiProject(file: string): string | undefined {
  const folder = geminiFolder(file);
  const root = geminiProjectRootFile(file);
  if (folder === undefined || root === undefined) return undefined;
  try {
    if (statSync(root).size <= MAX_PROJECT_ROOT_BYTES) {
      const path = readFileSync(root, 'utf8').trim();
      if (isAbsolute(path) && !path.includes('\n')) return path;
    }
  } catch {
    // no such file (older Gemini CLI): the folder's name
  }
  return folder;
}

/**
 * The parser for a transcript, judged from its first JSON record; `undefined` when the format is
 * not one loopguard reads.
 * - Gemini CLI chat: a header with `sessionId` and `projectHash`, or a message with `id` and `type` `user|gemini`;
 * - Codex rollout: `{ timestamp, type: session_meta|response_item|event_msg|turn_context, payload }`;
 * - Claude Code transcript: a record with `sessionId` and a `type`, or a `summary` with `leafUuid`;
 * - live output kept by `loopguard run`: Claude Code `stream-json` (`type` `system`/`assistant`/`user`
 *   with `session_id`), Codex `exec --json` (`thread.started`, `item.*`), Gemini CLI `stream-json`
 *   (`init`, `message`, `tool_use` with `session_id` or `timestamp`);
 * - loopguard's step JSONL: `type` `action|observation|message`.
 */
export function detectFormat(record: Record<string, unknown>, file: string): TranscriptParser | undefined {
  const type = record.type;
  if (typeof record.sessionId === 'string' && typeof record.projectHash === 'string') {
    // a subagent's chat (its header's `kind`) is its session's subagent, filed in a folder named after it
    const parent = record.kind === 'subagent' ? geminiParentSession(file) : undefined;
    return new GeminiChatParser(geminiProject(file), parent);
  }
  if (typeof type === 'string' && CODEX_RECORDS.has(type) && 'payload' in record)
    return new CodexRolloutParser();
  if (typeof record.sessionId === 'string' && typeof type === 'string') return new ClaudeTranscriptParser();
  if (type === 'summary' && typeof record.leafUuid === 'string') return new ClaudeTranscriptParser();
  if (typeof type !== 'string') return undefined;
  if (STEP_TYPES.has(type)) return new StreamParser('steps-jsonl');
  if (CODEX_EVENTS.has(type)) return new StreamParser('codex-exec-json');
  if (
    typeof record.session_id === 'string' &&
    (type === 'system' || type === 'assistant' || type === 'user')
  ) {
    return new StreamParser('claude-stream-json');
  }
  if (type === 'init' || type === 'tool_use' || type === 'tool_result')
    return new StreamParser('gemini-stream-json');
  return undefined;
}
