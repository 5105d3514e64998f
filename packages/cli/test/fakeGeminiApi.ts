import { createServer, type Server } from 'node:http';

/** One scripted reply of the fake Gemini model: a function call or a text. */
export type GeminiTurn = { tool: string; args: Record<string, unknown> } | { text: string };

interface GenerateRequest {
  contents?: Array<{ role?: string }>;
  tools?: unknown[];
}

/**
 * A scripted Gemini API on 127.0.0.1 (only what Gemini CLI needs offline): `POST
 * /v1beta/models/<model>:streamGenerateContent?alt=sse` and `:generateContent`. A request that
 * offers tools gets `script(turn, contents)`, where `turn` counts the model turns already in the
 * conversation (a promise holds the reply until it settles); any other request (the model router) gets a routing verdict. `conversations` keeps
 * the `contents` of every request that offered tools: what the model received.
 */
export async function startFakeGeminiApi(
  script: (turn: number, contents: unknown[]) => GeminiTurn | Promise<GeminiTurn>,
  {
    usage = { promptTokenCount: 10, candidatesTokenCount: 1, totalTokenCount: 11 },
  }: { usage?: Record<string, number> } = {},
) {
  const conversations: unknown[][] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', async () => {
      const json = (body === '' ? {} : JSON.parse(body)) as GenerateRequest;
      if (req.url?.includes(':countTokens')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ totalTokens: 10 }));
        return;
      }
      const offersTools = (json.tools ?? []).length > 0;
      if (offersTools) conversations.push(json.contents ?? []);
      // Without tools it is Gemini CLI's model router asking for a JSON verdict: with a plain text
      // instead, the first reply came about 100 s later (measured).
      const turn = offersTools
        ? await script((json.contents ?? []).filter((c) => c.role === 'model').length, json.contents ?? [])
        : { text: JSON.stringify({ complexity_reasoning: 'a scripted test', complexity_score: 1 }) };
      const part =
        'tool' in turn ? { functionCall: { name: turn.tool, args: turn.args } } : { text: turn.text };
      const chunk = {
        candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }],
        usageMetadata: usage,
        modelVersion: 'gemini-test',
      };
      if (req.url?.includes(':streamGenerateContent')) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(`data: ${JSON.stringify(chunk)}\n\n`);
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(chunk));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    conversations,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
