import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { recordOf } from '@loopguard/core/internal';
import { McpHookServer } from '../../src/mcp/McpHookServer.js';
import { mutate, random } from './mutate.js';

/**
 * loopguard's MCP server (`loopguard mcp`, the fast path) fed fuzzed input, one server per session
 * as Claude Code starts one per session: JSON-RPC messages mutated as text (`messages`), hook calls
 * whose event was mutated before Claude Code's way of writing it into the tool's arguments
 * (`arguments`), across a few sessions of one project and ids a mutation may change (`sessions`).
 * Every message but a notification must get exactly one reply, a result or a JSON-RPC error, and
 * never an internal error (-32603: something threw that was not foreseen); `receive` must never
 * throw. The readings of the events themselves (typed or untyped errors) are the `mcp hook
 * arguments` target of `fuzzTargets`.
 */

/** What a run of {@link runMcpFuzz} found. */
export interface McpFuzzCounts {
  /** Messages sent. */
  inputs: number;
  /** Of which requests (a reply is due). */
  requests: number;
  /** Replies: results, of which `isError` tool results, and JSON-RPC errors. */
  replies: { results: number; toolErrors: number; errors: number };
  /** Requests without a reply once the server was idle. */
  unanswered: number;
  /** Replies the request did not call for (a second one, or one to a notification). */
  extra: number;
  /** Untyped errors: `receive` threw, a reply was not JSON-RPC, or an internal error (-32603). */
  untyped: number;
  /** The first untyped errors, with their input (at most 20). */
  samples: Array<{ error: string; input: string }>;
  /** The longest a request waited for its reply, ms, and the message. */
  slowest: { ms: number; input: string };
  /** Sessions (servers) run. */
  sessions: number;
}

/** Messages per session (server) before it ends and a new one starts. */
const SESSION_LINES = 40;

/** The `hook` tool's arguments as Claude Code makes them: every field a string, objects as their JSON. */
export function toolArguments(event: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(event).map(([key, value]) => [
      key,
      typeof value === 'string' ? value : JSON.stringify(value),
    ]),
  );
}

/** How many replies a line calls for: one per request, none for a notification (or a batch of them). */
function repliesDue(line: string): number {
  if (line.trim() === '') return 0;
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch {
    return 1;
  }
  if (Array.isArray(message))
    return message.length === 0 || message.some((item) => recordOf(item)?.id !== undefined) ? 1 : 0;
  const request = recordOf(message);
  return request === undefined || request.id !== undefined ? 1 : 0;
}

/**
 * Runs `inputs` fuzzed messages through fresh servers of one project ({@link SESSION_LINES} a server),
 * from `seed`: each message sent alone and answered before the next (a reply's wait is its own).
 * @param dir - this folder (`packages/cli/test/fuzz`), to find the recorded events. @default its place
 */
export async function runMcpFuzz(
  inputs: number,
  seed: number,
  dir = fileURLToPath(new URL('.', import.meta.url)),
): Promise<McpFuzzCounts> {
  const rnd = random(seed);
  const project = mkdtempSync(join(tmpdir(), 'loopguard-mcp-fuzz-'));
  const sessions = ['fuzz-a', 'fuzz-b', 'fuzz-c'];
  const events = readFileSync(join(dir, '..', 'fixtures', 'hooks', 'claude-code-2.1.330.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.stringify({ ...JSON.parse(line), cwd: project }));
  let id = 0;
  const call = (args: unknown, requestId: unknown = ++id) =>
    JSON.stringify({
      method: 'tools/call',
      params: { name: 'hook', arguments: args },
      jsonrpc: '2.0',
      id: requestId,
    });
  const protocol = [
    JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {} },
    }),
    JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }),
  ];
  const messages = [...protocol, ...events.map((event) => call(toolArguments(JSON.parse(event))))];
  const counts: McpFuzzCounts = {
    inputs: 0,
    requests: 0,
    replies: { results: 0, toolErrors: 0, errors: 0 },
    unanswered: 0,
    extra: 0,
    untyped: 0,
    samples: [],
    slowest: { ms: 0, input: '' },
    sessions: 0,
  };
  const untyped = (error: string, input: string) => {
    counts.untyped++;
    if (counts.samples.length < 20)
      counts.samples.push({ error: error.slice(0, 200), input: input.slice(0, 300) });
  };

  /** A message of the session: a protocol or hook message mutated as text, or a hook call of a mutated event. */
  const next = (n: number): string => {
    if (n === 0) return protocol[0] as string;
    const kind = rnd();
    if (kind < 0.4) {
      const seedLine = messages[Math.floor(rnd() * messages.length)] as string;
      return rnd() < 0.75 ? mutate(seedLine, messages, rnd) : seedLine;
    }
    const event = events[Math.floor(rnd() * events.length)] as string;
    const text = rnd() < 0.8 ? mutate(event, events, rnd) : event;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return call({ tool_response: text, session_id: sessions[0] });
    }
    const record = recordOf(value);
    const session = sessions[Math.floor(rnd() * sessions.length)] as string;
    const withSession = record !== undefined && rnd() < 0.8 ? { ...record, session_id: session } : value;
    try {
      // Claude Code writes every field as a string; a hostile caller need not
      return call(
        recordOf(withSession) !== undefined && rnd() < 0.85
          ? toolArguments(withSession as Record<string, unknown>)
          : withSession,
      );
    } catch {
      // nested past JSON.stringify's stack: nobody can write this message; its text instead
      return call({ tool_response: text, session_id: session });
    }
  };

  /** Sessions of fuzzed messages, each through a fresh server, until `inputs` are sent. */
  const fuzzServers = async (): Promise<void> => {
    while (counts.inputs < inputs) {
      const lines: string[] = [];
      const server = new McpHookServer({
        write: (line) => lines.push(line),
        projectDir: project,
        env: { HOME: project, CLAUDE_CONFIG_DIR: '' },
      });
      counts.sessions++;
      for (let n = 0; n < SESSION_LINES && counts.inputs < inputs; n++) {
        // a raw line feed would end the message early: in JSON it is only whitespace between values
        const input = next(n).replaceAll('\n', ' ');
        counts.inputs++;
        const due = repliesDue(input);
        counts.requests += due;
        const before = lines.length;
        const start = performance.now();
        try {
          server.receive(Buffer.from(`${input}\n`));
          await server.idle();
        } catch (error) {
          untyped(`receive threw: ${String(error)}`, input);
        }
        const ms = performance.now() - start;
        if (ms > counts.slowest.ms) counts.slowest = { ms, input: input.slice(0, 120) };
        const replies = lines.slice(before);
        if (replies.length < due) counts.unanswered += due - replies.length;
        if (replies.length > due) counts.extra += replies.length - due;
        for (const reply of replies) {
          let message: unknown;
          try {
            message = JSON.parse(reply);
          } catch {
            untyped(`a reply that is not JSON: ${reply.slice(0, 100)}`, input);
            continue;
          }
          for (const item of Array.isArray(message) ? message : [message]) {
            const record = recordOf(item);
            const error = recordOf(record?.error);
            if (
              record?.jsonrpc !== '2.0' ||
              !('id' in record) ||
              (error === undefined) === !('result' in record)
            )
              untyped(`a reply that is not JSON-RPC: ${reply.slice(0, 100)}`, input);
            else if (error !== undefined) {
              counts.replies.errors++;
              if (error.code === -32603) untyped(`internal error: ${String(error.message)}`, input);
            } else {
              counts.replies.results++;
              if (recordOf(record.result)?.isError === true) counts.replies.toolErrors++;
            }
          }
        }
      }
      server.close();
    }
  };
  try {
    await fuzzServers();
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
  return counts;
}
