import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

/** A scripted model API on 127.0.0.1: its URL, the request bodies it answered, and its close. */
export interface FakeModelApi {
  readonly url: string;
  /** The parsed body of every scripted (agent-loop) request, in order. */
  readonly bodies: unknown[];
  close(): Promise<void>;
}

type Handler = (url: string, body: unknown, res: ServerResponse) => boolean;

async function serve(handle: Handler): Promise<FakeModelApi> {
  const bodies: unknown[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let text = '';
    req.on('data', (chunk) => {
      text += chunk;
    });
    req.on('end', () => {
      const body: unknown = text === '' ? {} : JSON.parse(text);
      if (handle(req.url ?? '', body, res)) bodies.push(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    bodies,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const sse = (res: ServerResponse, events: Array<[string | null, unknown]>) => {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const [event, data] of events)
    res.write(`${event === null ? '' : `event: ${event}\n`}data: ${JSON.stringify(data)}\n\n`);
  res.end();
};

/** One scripted Codex turn: the output items of one Responses API reply. */
export type ResponsesReply = Array<Record<string, unknown>>;

/**
 * A function call of Codex's `exec_command` tool (what Codex runs as a shell command), in the
 * folder `workdir` when given (else the session's).
 */
export const execCommand = (cmd: string, workdir?: string): Record<string, unknown> => ({
  type: 'function_call',
  name: 'exec_command',
  arguments: JSON.stringify(workdir === undefined ? { cmd } : { cmd, workdir }),
});

/** A call of one of Codex's `multi_agent_v1` tools (`spawn_agent`, `wait_agent`), with `args`. */
export const multiAgentCall = (name: string, args: unknown): Record<string, unknown> => ({
  type: 'function_call',
  namespace: 'multi_agent_v1',
  name,
  arguments: JSON.stringify(args),
});

/** An assistant message item. */
export const assistantText = (text: string): Record<string, unknown> => ({
  type: 'message',
  role: 'assistant',
  content: [{ type: 'output_text', text, annotations: [] }],
});

/**
 * A scripted OpenAI Responses API (only what `codex exec` needs offline): `POST …/responses`
 * answered with server-sent events; reply `n` (0-based, over the whole test) is `script(n, body)`,
 * `body` the request (a subagent's thread asks with its own conversation).
 */
export function startFakeResponsesApi(
  script: (call: number, body: { input?: Array<Record<string, unknown>> }) => ResponsesReply,
): Promise<FakeModelApi> {
  let calls = 0;
  return serve((url, body, res) => {
    if (!url.includes('/responses')) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"error":{"message":"not scripted"}}');
      return false;
    }
    const call = calls++;
    const items = script(call, body as { input?: Array<Record<string, unknown>> }).map((item, k) => ({
      id: `item_${call}_${k}`,
      call_id: `call_${call}_${k}`,
      status: 'completed',
      ...item,
    }));
    const response = { id: `resp_${call}`, object: 'response', status: 'in_progress', output: [] };
    const usage = {
      input_tokens: 10,
      output_tokens: 5,
      total_tokens: 15,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens_details: { reasoning_tokens: 0 },
    };
    sse(res, [
      ['response.created', { type: 'response.created', response }],
      ...items.flatMap(
        (item, k): Array<[string, unknown]> => [
          ['response.output_item.added', { type: 'response.output_item.added', output_index: k, item }],
          ['response.output_item.done', { type: 'response.output_item.done', output_index: k, item }],
        ],
      ),
      [
        'response.completed',
        { type: 'response.completed', response: { ...response, status: 'completed', output: items, usage } },
      ],
    ]);
    return true;
  });
}

/** One scripted Gemini turn: the parts of one model reply (`{ text }`, `{ functionCall: { name, args } }`). */
export type GeminiReply = Array<Record<string, unknown>>;

/**
 * A scripted Gemini API (only what Gemini CLI needs offline, through `GOOGLE_GEMINI_BASE_URL`):
 * `…:streamGenerateContent` / `…:generateContent` requests that offer tools (the agent loop) get
 * `script(n)`; the CLI's own side requests (model routing, next-speaker checks) get a short JSON text.
 */
export function startFakeGeminiApi(script: (call: number) => GeminiReply): Promise<FakeModelApi> {
  let calls = 0;
  return serve((url, body, res) => {
    if (url.includes(':countTokens')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"totalTokens":10}');
      return false;
    }
    if (!/generatecontent/i.test(url)) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"error":{"code":404,"message":"not scripted"}}');
      return false;
    }
    const tools = (body as { tools?: unknown[] }).tools;
    const loop = Array.isArray(tools) && tools.length > 0;
    const parts = loop ? script(calls++) : [{ text: '{"next_speaker":"user","reasoning":"done"}' }];
    const chunk = {
      candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
    };
    if (/stream/i.test(url)) sse(res, [[null, chunk]]);
    else {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(chunk));
    }
    return loop;
  });
}
