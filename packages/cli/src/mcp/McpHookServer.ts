import { parseEventFields } from '../hook/eventText.js';
import { MAX_EVENT_BYTES } from '../hook/readBounded.js';
import { answerHookEvent, logFailure } from '../hook/runHook.js';
import { HookDatabasePool } from './HookDatabasePool.js';
import { eventFieldsOfToolArguments, HOOK_TOOL_NAME, hookToolInput, MODEL_TOOL_NAME } from './hookTool.js';
import { idOfMessage } from './messageId.js';

/**
 * Longest JSON-RPC message read: twice the hook's event bound (a tool result's JSON, escaped once
 * more inside the call's arguments). A longer one is dropped unanswered: Claude Code's timeout
 * ends that hook call, which fails open.
 */
export const MAX_MESSAGE_BYTES = 2 * MAX_EVENT_BYTES;

/** What {@link McpHookServer} reads, writes and logs. */
export interface McpHookServerIo {
  /** Writes one message (a line of JSON). */
  write(line: string): void;
  /** The project directory Claude Code started the server for (`CLAUDE_PROJECT_DIR`), or `''`. */
  projectDir: string;
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

interface Request {
  jsonrpc?: string;
  id?: string | number | null;
  method?: string;
  params?: { name?: unknown; arguments?: unknown; protocolVersion?: unknown };
}

/** What a hook answers when the model calls loopguard's tool itself: refused before it runs. */
const MODEL_CALL_REFUSED = JSON.stringify({
  hookSpecificOutput: {
    hookEventName: 'PreToolUse',
    permissionDecision: 'deny',
    permissionDecisionReason: `${MODEL_TOOL_NAME} is loopguard's hook: Claude Code calls it, not the model.`,
  },
});

/**
 * loopguard's MCP server on stdio, the fast path of Claude Code's hooks: Claude Code starts it
 * with the session (no port, no token: nothing another local process could answer or listen to)
 * and calls its one tool, `hook`, from `type: "mcp_tool"` hook entries. Each call is answered as
 * `loopguard hook claude` answers the event, from one process whose database connections stay
 * open. Messages are handled one at a time, so that eight 50 MB events take the memory of one.
 * @example
 * const server = new McpHookServer({ write: (l) => process.stdout.write(l), projectDir });
 * process.stdin.on('data', (chunk) => server.receive(chunk));
 */
export class McpHookServer {
  private readonly databases = new HookDatabasePool();
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private dropping = false;
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
      const line = this.dropping ? undefined : Buffer.concat(this.pending, this.pendingBytes);
      this.pending = [];
      this.pendingBytes = 0;
      this.dropping = false;
      if (line !== undefined && !isBlank(line)) this.enqueue(line);
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
    if (this.dropping || bytes.length === 0) return;
    this.pendingBytes += bytes.length;
    if (this.pendingBytes > MAX_MESSAGE_BYTES) {
      this.pending = [];
      this.dropping = true;
    } else this.pending.push(bytes);
  }

  /** The line stays bytes until its turn: a late one is never decoded. */
  private enqueue(line: Buffer): void {
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
   * A call that waited past its budget: answered with silence without decoding or parsing it
   * (its id is read from its bytes, {@link idOfMessage}).
   */
  private async tooLate(line: Buffer, waited: number): Promise<void> {
    const id = idOfMessage(line);
    if (id === undefined) return this.handle(line.toString('utf8'));
    const error = new Error(`the call waited ${Math.round(waited)} ms for the ones before it`);
    logFailure(this.io.projectDir, 'claude', undefined, error, (this.io.now ?? Date.now)());
    this.send({
      jsonrpc: '2.0',
      id,
      result: { content: [{ type: 'text', text: '' }], isError: false },
    });
  }

  private async handle(line: string): Promise<void> {
    let request: Request;
    try {
      request = JSON.parse(line) as Request;
    } catch {
      this.send({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'not JSON' } });
      return;
    }
    if (request === null || typeof request !== 'object' || Array.isArray(request)) return;
    const { id, method, params } = request;
    if (id === undefined) return; // a notification
    const reply = (result: unknown) => this.send({ jsonrpc: '2.0', id, result });
    switch (method) {
      case 'initialize':
        return reply({
          protocolVersion:
            typeof params?.protocolVersion === 'string' ? params.protocolVersion : '2025-06-18',
          capabilities: { tools: {} },
          serverInfo: { name: 'loopguard', version: '1' },
          instructions: `${MODEL_TOOL_NAME} is called by Claude Code's hooks; never call it yourself.`,
        });
      case 'ping':
        return reply({});
      case 'tools/list':
        return reply({ tools: [TOOL] });
      case 'tools/call':
        return reply(await this.call(params?.name, params?.arguments));
      default:
        this.send({ jsonrpc: '2.0', id, error: { code: -32601, message: `no method ${String(method)}` } });
    }
  }

  /** One `hook` call: the text is the hook's JSON reply, or empty for silence. */
  private async call(name: unknown, args: unknown): Promise<unknown> {
    const text = (value: string, isError = false) => ({ content: [{ type: 'text', text: value }], isError });
    if (name !== HOOK_TOOL_NAME) return text(`no tool ${String(name)}`, true);
    let fields: [string, string][];
    try {
      fields = eventFieldsOfToolArguments(args);
    } catch (error) {
      return text((error as Error).message, true);
    }
    const { tool_name: tool, hook_event_name: eventName } = args as Record<string, unknown>;
    if (tool === MODEL_TOOL_NAME) return text(eventName === 'PreToolUse' ? MODEL_CALL_REFUSED : '');
    const projectDir = this.io.projectDir;
    return text(
      await answerHookEvent('claude', '', {
        fields: () => parseEventFields(fields),
        env: { CLAUDE_PROJECT_DIR: projectDir },
        cwd: projectDir,
        openDatabase: this.databases.open,
        ...(this.io.now === undefined ? {} : { now: this.io.now }),
      }),
    );
  }

  private send(message: unknown): void {
    this.io.write(`${JSON.stringify(message)}\n`);
  }
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
