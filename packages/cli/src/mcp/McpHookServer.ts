import { recordOf } from '@loopguard/core/internal';
import { type EventFieldText, parseEventFields } from '../hook/eventText.js';
import type { HookEvent } from '../hook/hookEvent.js';
import { MAX_EVENT_BYTES } from '../hook/readBounded.js';
import { answerHookEvent, logFailure } from '../hook/runHook.js';
import { HookDatabasePool } from './HookDatabasePool.js';
import { eventFieldsOfToolArguments, HOOK_TOOL_NAME, hookToolInput, MODEL_TOOL_NAME } from './hookTool.js';
import { idOfMessage } from './messageId.js';
import { claudeProjectsDir, isSessionTranscript } from './sessionTranscript.js';

/**
 * Longest JSON-RPC message read: the hook's event bound, one bound for both doors (on the fast
 * path the event's fields are counted as the message carries them, escaped once more). A longer
 * one is never parsed: it is answered with silence (it fails open, logged), or with a JSON-RPC
 * error when its id cannot be read from its first and last bytes.
 */
export const MAX_MESSAGE_BYTES = MAX_EVENT_BYTES;

/** How much of a message too long to read is kept to find its id: its first and last bytes. */
const KEPT_ENDS = 1024;

/** What {@link McpHookServer} reads, writes and logs. */
export interface McpHookServerIo {
  /** Writes one message (a line of JSON). */
  write(line: string): void;
  /**
   * The project directory Claude Code started the server for (`CLAUDE_PROJECT_DIR`), or `''`: then
   * nothing is guarded (every hook call is answered with silence, and nothing is written).
   */
  projectDir: string;
  /**
   * The environment Claude Code started the server with (its own): the off switch
   * (`LOOPGUARD_HOOK=off`) and where Claude Code keeps its transcripts (`CLAUDE_CONFIG_DIR`, `HOME`).
   * @default {} (switched on; transcripts under the user's `~/.claude`)
   */
  env?: NodeJS.ProcessEnv;
  /** Epoch ms. @default Date.now */
  now?: () => number;
  /**
   * How long a message may wait for its turn and still be guarded, ms: a later one is answered
   * with silence at once (it fails open, logged), so that every reply comes within Claude Code's
   * hook timeout however many large events arrive together.
   * @default 4000
   */
  waitBudgetMs?: number;
}

/** JSON-RPC's error codes the server answers with. */
const ERRORS = { parse: -32700, invalidRequest: -32600, noMethod: -32601, internal: -32603 } as const;

/** What a hook answers when the model calls loopguard's tool itself: refused before it runs. */
const MODEL_CALL_REFUSED = JSON.stringify({
  hookSpecificOutput: {
    hookEventName: 'PreToolUse',
    permissionDecision: 'deny',
    permissionDecisionReason: `${MODEL_TOOL_NAME} is loopguard's hook: Claude Code calls it, not the model.`,
  },
});

/** The model's tool name as it stands in a message's bytes (a hook call on the model's own call). */
const MODEL_TOOL_BYTES = Buffer.from(MODEL_TOOL_NAME);

/**
 * loopguard's MCP server on stdio, the fast path of Claude Code's hooks: Claude Code starts it
 * with the session (no port, no token: nothing another local process could answer or listen to)
 * and calls its one tool, `hook`, from `type: "mcp_tool"` hook entries. Each call is answered as
 * `loopguard hook claude` answers the event, from one process whose database connections stay
 * open. Messages are handled one at a time, so that eight 50 MB events take the memory of one;
 * a hook call on the model's own call of the tool is answered at once, before the queue, so that
 * its refusal never waits. Every message but a notification gets one reply (a result or a
 * JSON-RPC error).
 * @example
 * const server = new McpHookServer({ write: (l) => process.stdout.write(l), projectDir, env: process.env });
 * process.stdin.on('data', (chunk) => server.receive(chunk));
 */
export class McpHookServer {
  private readonly databases = new HookDatabasePool();
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** The first and last bytes of a line too long to read (`undefined`: the line is being read). */
  private dropped: { head: Buffer; tail: Buffer } | undefined;
  private queue: Promise<void> = Promise.resolve();

  /** @param io - see {@link McpHookServerIo}. */
  constructor(private readonly io: McpHookServerIo) {}

  /**
   * Takes bytes from stdin; each complete line is handled after the ones before it. The chunk is
   * kept, not copied, until its line is handled: the caller must not reuse it (a stream's never is).
   */
  receive(chunk: Buffer): void {
    let start = 0;
    for (let end = chunk.indexOf(10); end !== -1; end = chunk.indexOf(10, start)) {
      this.take(chunk.subarray(start, end));
      const { dropped } = this;
      const line = dropped === undefined ? Buffer.concat(this.pending, this.pendingBytes) : undefined;
      this.pending = [];
      this.pendingBytes = 0;
      this.dropped = undefined;
      if (dropped !== undefined) this.tooLong(dropped.head, dropped.tail);
      else if (line !== undefined && !isBlank(line)) this.enqueue(line);
      start = end + 1;
    }
    this.take(chunk.subarray(start));
  }

  /** Resolves once every message received so far is answered. */
  idle(): Promise<void> {
    return this.queue;
  }

  /** Closes the databases (at the end of stdin). */
  close(): void {
    this.databases.closeAll();
  }

  private take(bytes: Buffer): void {
    if (bytes.length === 0) return;
    if (this.dropped !== undefined) {
      this.dropped.tail = lastBytes([this.dropped.tail, bytes]);
      return;
    }
    this.pendingBytes += bytes.length;
    this.pending.push(bytes);
    if (this.pendingBytes > MAX_MESSAGE_BYTES) {
      this.dropped = { head: firstBytes(this.pending), tail: lastBytes(this.pending) };
      this.pending = [];
    }
  }

  /**
   * The line stays bytes until its turn: a late one is never decoded. Only a line that names the
   * model's tool is parsed at once, to refuse the model's call without waiting ({@link answerModelCall}).
   */
  private enqueue(line: Buffer): void {
    if (line.includes(MODEL_TOOL_BYTES) && this.answerModelCall(line)) return;
    const receivedAt = performance.now();
    this.queue = this.queue
      .then(() => {
        const waited = performance.now() - receivedAt;
        return waited > (this.io.waitBudgetMs ?? 4000)
          ? this.tooLate(line, waited)
          : this.handle(line.toString('utf8'));
      })
      .catch(() => {});
  }

  /**
   * A hook call on the model's own call of the tool, answered at once whatever waits in the queue:
   * the refusal never depends on timing. `false` when the line is not one (it takes its turn).
   */
  private answerModelCall(line: Buffer): boolean {
    let request: Record<string, unknown> | undefined;
    try {
      request = recordOf(JSON.parse(line.toString('utf8')));
    } catch {
      return false;
    }
    const params = recordOf(request?.params);
    const reply =
      request?.method === 'tools/call' && params?.name === HOOK_TOOL_NAME
        ? modelCallReply(params.arguments)
        : undefined;
    if (request === undefined || reply === undefined || !isId(request.id)) return false;
    this.send({ jsonrpc: '2.0', id: request.id, result: textResult(reply) });
    return true;
  }

  /**
   * A message over {@link MAX_MESSAGE_BYTES}: never parsed. Its id is read from its first or last
   * bytes (Claude Code writes it last); it is answered with silence and one log line, as the
   * command hook answers an event over the bound, or with a JSON-RPC error naming the bound when no
   * id can be read.
   */
  private tooLong(head: Buffer, tail: Buffer): void {
    const ids = [idOfMessage(head), idOfMessage(tail.subarray(1))].filter((id) => id !== undefined);
    const error = new Error(`the event is larger than ${MAX_MESSAGE_BYTES} bytes`);
    if (ids.length !== 1) {
      this.send({ jsonrpc: '2.0', id: null, error: { code: ERRORS.invalidRequest, message: error.message } });
      return;
    }
    logFailure(this.io.projectDir, 'claude', undefined, error, (this.io.now ?? Date.now)());
    this.send({ jsonrpc: '2.0', id: ids[0], result: textResult('') });
  }

  /**
   * A call that waited past its budget: answered with silence without decoding or parsing it
   * (its id is read from its bytes, {@link idOfMessage}).
   */
  private async tooLate(line: Buffer, waited: number): Promise<void> {
    const id = idOfMessage(line);
    if (id === undefined) return this.handle(line.toString('utf8'));
    const error = new Error(`the call waited ${Math.round(waited)} ms for the ones before it`);
    logFailure(this.io.projectDir, 'claude', undefined, error, (this.io.now ?? Date.now)());
    this.send({ jsonrpc: '2.0', id, result: textResult('') });
  }

  private async handle(line: string): Promise<void> {
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      return this.fail(null, ERRORS.parse, 'not JSON');
    }
    if (Array.isArray(message)) return this.refuseBatch(message);
    const request = recordOf(message);
    if (request === undefined) return this.fail(null, ERRORS.invalidRequest, 'a request must be an object');
    const { id, method } = request;
    if (id === undefined) return; // a notification
    if (!isId(id)) return this.fail(null, ERRORS.invalidRequest, 'id must be a string, a number or null');
    if (typeof method !== 'string') return this.fail(id, ERRORS.invalidRequest, 'method must be a string');
    try {
      const result = await this.answer(method, recordOf(request.params) ?? {});
      if (result === undefined)
        this.fail(id, ERRORS.noMethod, `no method ${JSON.stringify(method.slice(0, 100))}`);
      else this.send({ jsonrpc: '2.0', id, result });
    } catch (error) {
      this.fail(id, ERRORS.internal, error instanceof Error ? error.message : 'internal error');
    }
  }

  /** The result of `method`, or `undefined` when there is no such method. */
  private async answer(method: string, params: Record<string, unknown>): Promise<unknown> {
    switch (method) {
      case 'initialize':
        return {
          protocolVersion: typeof params.protocolVersion === 'string' ? params.protocolVersion : '2025-06-18',
          capabilities: { tools: {} },
          serverInfo: { name: 'loopguard', version: '1' },
          instructions: `${MODEL_TOOL_NAME} is called by Claude Code's hooks; never call it yourself.`,
        };
      case 'ping':
        return {};
      case 'tools/list':
        return { tools: [TOOL] };
      case 'tools/call':
        return this.call(params.name, params.arguments);
      default:
        return undefined;
    }
  }

  /**
   * A batch (an array of requests), which MCP does not use since its 2025-06-18 revision: each
   * request in it is answered with an error, in one array; an empty one with one error.
   */
  private refuseBatch(batch: unknown[]): void {
    const message = 'a batch is not supported: send one request per message';
    if (batch.length === 0) {
      this.fail(null, ERRORS.invalidRequest, message);
      return;
    }
    const replies = batch
      .map((item) => recordOf(item)?.id)
      .filter((id) => id !== undefined)
      .map((id) => ({
        jsonrpc: '2.0',
        id: isId(id) ? id : null,
        error: { code: ERRORS.invalidRequest, message },
      }));
    if (replies.length > 0) this.send(replies);
  }

  /** One `hook` call: the text is the hook's JSON reply, or empty for silence. */
  private async call(name: unknown, args: unknown): Promise<unknown> {
    if (name !== HOOK_TOOL_NAME)
      return textResult(
        `no tool ${typeof name === 'string' ? JSON.stringify(name.slice(0, 100)) : `of type ${typeof name}`}`,
        true,
      );
    let fields: EventFieldText[];
    try {
      fields = eventFieldsOfToolArguments(args);
    } catch (error) {
      return textResult((error as Error).message, true);
    }
    const own = modelCallReply(args);
    if (own !== undefined) return textResult(own);
    const projectDir = this.io.projectDir;
    // Claude Code (2.1.330) starts every MCP server with CLAUDE_PROJECT_DIR: without it another
    // client started the server, and the event's `cwd`, a claim, could name any of the user's projects
    if (projectDir === '') return textResult('');
    const env = { ...this.io.env, CLAUDE_PROJECT_DIR: projectDir };
    return textResult(
      await answerHookEvent('claude', '', {
        fields: () => parseEventFields(fields),
        distrust: (event) => transcriptDistrust(event, env),
        env,
        cwd: projectDir,
        openDatabase: this.databases.open,
        ...(this.io.now === undefined ? {} : { now: this.io.now }),
      }),
    );
  }

  private fail(id: string | number | null, code: number, message: string): void {
    this.send({ jsonrpc: '2.0', id, error: { code, message } });
  }

  private send(message: unknown): void {
    this.io.write(`${JSON.stringify(message)}\n`);
  }
}

/**
 * The hook's answer when the event is about the model's own call of loopguard's tool (refused
 * before it runs, silence after), whatever the switches say: it reads and writes nothing.
 * `undefined` when it is about another call.
 */
function modelCallReply(args: unknown): string | undefined {
  const given = recordOf(args);
  if (given?.tool_name !== MODEL_TOOL_NAME) return undefined;
  return given.hook_event_name === 'PreToolUse' ? MODEL_CALL_REFUSED : '';
}

/**
 * Why the server does not read an event's transcript, if so: a hook call is a tool call, which
 * another process or the model itself could make, and the spend guard counts what it reads there
 * in the session's and the project's budgets; so only the file where Claude Code keeps that
 * session's transcript is read ({@link isSessionTranscript}).
 */
function transcriptDistrust(event: HookEvent, env: NodeJS.ProcessEnv): string | undefined {
  const path = event.transcriptPath;
  // a subagent's event names its session's transcript (its own id is the subagent's)
  const session = event.parentSessionId ?? event.sessionId;
  if (path === undefined || isSessionTranscript(path, session, event.projectDir, env)) return undefined;
  return `transcript_path ${JSON.stringify(path.slice(0, 200))} is not the session's transcript in Claude Code's folder ${claudeProjectsDir(env) ?? '(none: CLAUDE_CONFIG_DIR or HOME is empty or relative)'}`;
}

/** A tool's result of one text. */
function textResult(text: string, isError = false) {
  return { content: [{ type: 'text', text }], isError };
}

/** Whether `id` is a JSON-RPC id: a string, a number or null. */
function isId(id: unknown): id is string | number | null {
  return id === null || typeof id === 'string' || typeof id === 'number';
}

/** The first {@link KEPT_ENDS} bytes of `chunks` together (a copy). */
function firstBytes(chunks: Buffer[]): Buffer {
  const kept: Buffer[] = [];
  let size = 0;
  for (const chunk of chunks) {
    if (size >= KEPT_ENDS) break;
    kept.push(chunk.subarray(0, KEPT_ENDS - size));
    size += kept.at(-1)?.length ?? 0;
  }
  return Buffer.concat(kept);
}

/** The last {@link KEPT_ENDS} bytes of `chunks` together (a copy). */
function lastBytes(chunks: Buffer[]): Buffer {
  const kept: Buffer[] = [];
  let size = 0;
  for (let i = chunks.length - 1; i >= 0 && size < KEPT_ENDS; i--) {
    const chunk = chunks[i] as Buffer;
    kept.unshift(chunk.subarray(Math.max(0, chunk.length - (KEPT_ENDS - size))));
    size += kept[0]?.length ?? 0;
  }
  return Buffer.concat(kept);
}

/** A line of only ASCII whitespace (space, tab, carriage return, vertical tab, form feed): no message. */
function isBlank(line: Buffer): boolean {
  for (const byte of line)
    if (byte !== 32 && byte !== 9 && byte !== 13 && byte !== 11 && byte !== 12) return false;
  return true;
}

const TOOL = {
  name: HOOK_TOOL_NAME,
  description: "loopguard's hook: Claude Code calls it around each tool call. Never call it yourself.",
  inputSchema: {
    type: 'object',
    properties: Object.fromEntries(Object.keys(hookToolInput()).map((field) => [field, { type: 'string' }])),
  },
};
