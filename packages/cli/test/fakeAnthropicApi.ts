import { createServer, type Server } from 'node:http';

/** One scripted reply of the fake model: a tool call or a text. */
export type ScriptedTurn = { tool: string; input: Record<string, unknown> } | { text: string };

type SseEvent = [event: string, data: Record<string, unknown>];

function blockEvents(turn: ScriptedTurn, id: string): SseEvent[] {
  if ('tool' in turn) {
    return [
      [
        'content_block_start',
        {
          type: 'content_block_start',
          index: 0,
          content_block: { type: 'tool_use', id: `toolu_${id}`, name: turn.tool, input: {} },
        },
      ],
      [
        'content_block_delta',
        {
          type: 'content_block_delta',
          index: 0,
          delta: { type: 'input_json_delta', partial_json: JSON.stringify(turn.input) },
        },
      ],
      ['content_block_stop', { type: 'content_block_stop', index: 0 }],
      [
        'message_delta',
        {
          type: 'message_delta',
          delta: { stop_reason: 'tool_use', stop_sequence: null },
          usage: { output_tokens: 12 },
        },
      ],
    ];
  }
  return [
    [
      'content_block_start',
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
    ],
    [
      'content_block_delta',
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: turn.text } },
    ],
    ['content_block_stop', { type: 'content_block_stop', index: 0 }],
    [
      'message_delta',
      {
        type: 'message_delta',
        delta: { stop_reason: 'end_turn', stop_sequence: null },
        usage: { output_tokens: 12 },
      },
    ],
  ];
}

/**
 * A scripted Anthropic Messages API on 127.0.0.1 (only what Claude Code needs offline): `POST
 * /v1/messages` with `stream: true` answered with server-sent events. The reply to a request with
 * tools is `script(turn, body)`, where `turn` counts the assistant messages already in the
 * conversation and `body` is the parsed request (a promise holds the reply until it settles, as a
 * slow model would); any other request (titles, summaries) gets a short text.
 * `options.usage` is the usage every reply reports (its `message_start`): 100 input tokens and 1 output token by default.
 */
export async function startFakeAnthropicApi(
  script: (turn: number, body: { messages?: unknown[] }) => ScriptedTurn | Promise<ScriptedTurn>,
  options: { usage?: Record<string, number> } = {},
): Promise<{ url: string; requests: number; conversations: unknown[][]; close: () => Promise<void> }> {
  const state = { requests: 0 };
  // The messages of every request that offered tools, in order: what the model received.
  const conversations: unknown[][] = [];
  let counter = 0;
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', async () => {
      const json = (body === '' ? {} : JSON.parse(body)) as {
        model?: string;
        stream?: boolean;
        tools?: unknown[];
        messages?: Array<{ role: string }>;
      };
      if (req.method !== 'POST' || !req.url?.startsWith('/v1/messages') || req.url.includes('count_tokens')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ input_tokens: 10 }));
        return;
      }
      state.requests += 1;
      const id = String(++counter);
      if (json.tools?.length) conversations.push(json.messages ?? []);
      const turn = json.tools?.length
        ? await script((json.messages ?? []).filter((m) => m.role === 'assistant').length, json)
        : { text: 'ok' };
      const usage = options.usage ?? { input_tokens: 100, output_tokens: 1 };
      const message = {
        id: `msg_${id}`,
        type: 'message',
        role: 'assistant',
        model: json.model ?? 'claude-test',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage,
      };
      if (json.stream !== true) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            ...message,
            content: [{ type: 'text', text: 'text' in turn ? turn.text : 'ok' }],
            stop_reason: 'end_turn',
          }),
        );
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const events: SseEvent[] = [
        ['message_start', { type: 'message_start', message }],
        ...blockEvents(turn, id),
        ['message_stop', { type: 'message_stop' }],
      ];
      for (const [event, data] of events) res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    get requests() {
      return state.requests;
    },
    conversations,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
