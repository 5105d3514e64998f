// The four agent frameworks, loaded from packages/agents (their pinned dev dependencies), each
// driving a scripted model through `steps` tool calls that make progress (every command and output
// new), with or without the loopguard adapter. Used by bench-agents.mjs.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const agentsDir = new URL('../../packages/agents/', import.meta.url);
const require = createRequire(new URL('package.json', agentsDir));
const load = (specifier) => import(pathToFileURL(require.resolve(specifier)).href);
const adapter = (name) => import(new URL(`dist/${name}/index.js`, agentsDir).href);

/** Step `i` of the scripted work: a new command with a new output. */
export function command(i) {
  return `grep -n "def parse_${i}" src/pkg/module_${i}.py | head -${(i % 7) + 3}`;
}
function output(cmd) {
  const i = Number(/parse_(\d+)/.exec(cmd)?.[1] ?? 0);
  return `${i}: def parse_${i}(self, text):\n${i + 1}:     fields = text.split(',')  # row ${i * 3}\n`;
}

/**
 * Wraps every function of `target` listed in `names` so that the time spent in it (its synchronous
 * part: the adapters return a promise only while a write is pending, and the bench records none)
 * is added to `clock.ns`.
 */
export function timed(target, names, clock) {
  const wrap = (fn) =>
    function (...args) {
      const start = process.hrtime.bigint();
      try {
        return fn.apply(this, args);
      } finally {
        clock.ns += process.hrtime.bigint() - start;
      }
    };
  for (const name of names) {
    const value = target[name];
    target[name] = Array.isArray(value) ? value.map(wrap) : wrap(value);
  }
  return target;
}

export async function aiSdk() {
  const { generateText, isStepCount, tool, jsonSchema } = await load('ai');
  const { MockLanguageModelV4 } = await load('ai/test');
  const { loopGuard } = await adapter('ai-sdk');
  const usage = {
    inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 1, text: 1, reasoning: undefined },
  };
  const tools = {
    run: tool({
      description: 'Run a command',
      inputSchema: jsonSchema({ type: 'object', properties: { cmd: { type: 'string' } }, required: ['cmd'] }),
      execute: async ({ cmd }) => output(cmd),
    }),
  };
  return async function drive(steps, guarded, clock) {
    let call = 0;
    const model = new MockLanguageModelV4({
      doGenerate: async () => {
        const i = call++;
        return {
          content: [
            {
              type: 'tool-call',
              toolCallId: `c${i}`,
              toolName: 'run',
              input: JSON.stringify({ cmd: command(i) }),
            },
          ],
          finishReason: { unified: 'tool-calls', raw: undefined },
          usage,
          warnings: [],
        };
      },
    });
    const limit = isStepCount(steps);
    const settings = guarded
      ? timed(loopGuard({ stopWhen: limit }), ['prepareStep', 'stopWhen'], clock)
      : { stopWhen: limit };
    const result = await generateText({ model, tools, prompt: 'Work.', ...settings });
    return { steps: result.steps.length, nudges: guarded ? settings.run.nudges.length : 0 };
  };
}

export async function openAiAgents() {
  const { Agent, run, setTracingDisabled, tool, Usage } = await load('@openai/agents');
  const { loopGuard } = await adapter('openai-agents');
  setTracingDisabled(true);
  return async function drive(steps, guarded, clock) {
    let call = 0;
    const model = {
      async getResponse() {
        const i = call++;
        const output =
          i < steps
            ? [
                {
                  type: 'function_call',
                  callId: `c${i}`,
                  name: 'run',
                  arguments: JSON.stringify({ cmd: command(i) }),
                  status: 'completed',
                },
              ]
            : [
                {
                  type: 'message',
                  role: 'assistant',
                  status: 'completed',
                  content: [{ type: 'output_text', text: 'Done.' }],
                },
              ];
        return { usage: new Usage(), output };
      },
      // biome-ignore lint/correctness/useYield: never streamed here
      async *getStreamedResponse() {
        throw new Error('not scripted');
      },
    };
    const agent = new Agent({
      name: 'bench',
      instructions: 'Work.',
      model,
      tools: [
        tool({
          name: 'run',
          description: 'Run a command',
          parameters: {
            type: 'object',
            properties: { cmd: { type: 'string' } },
            required: ['cmd'],
            additionalProperties: false,
          },
          strict: true,
          execute: async ({ cmd }) => output(cmd),
        }),
      ],
    });
    const guard = guarded ? timed(loopGuard(), ['callModelInputFilter'], clock) : undefined;
    await run(agent, 'Work.', {
      maxTurns: steps + 5,
      ...(guard ? { callModelInputFilter: guard.callModelInputFilter } : {}),
    });
    return { steps: call - 1, nudges: guard ? guard.run.nudges.length : 0 };
  };
}

export async function langGraph() {
  const { AIMessage, HumanMessage } = await load('@langchain/core/messages');
  const { tool } = await load('@langchain/core/tools');
  const { END, MessagesAnnotation, START, StateGraph } = await load('@langchain/langgraph');
  const { ToolNode, toolsCondition } = await load('@langchain/langgraph/prebuilt');
  const { loopGuard } = await adapter('langgraph');
  const runTool = tool(async ({ cmd }) => output(cmd), {
    name: 'run',
    description: 'Run a command',
    schema: { type: 'object', properties: { cmd: { type: 'string' } }, required: ['cmd'] },
  });
  return async function drive(steps, guarded, clock) {
    let call = 0;
    const agent = async () => {
      const i = call++;
      return {
        messages: [
          i < steps
            ? new AIMessage({
                content: '',
                tool_calls: [{ id: `c${i}`, name: 'run', args: { cmd: command(i) } }],
              })
            : new AIMessage('Done.'),
        ],
      };
    };
    const graph = new StateGraph(MessagesAnnotation)
      .addNode('agent', agent)
      .addNode('tools', new ToolNode([runTool]))
      .addEdge(START, 'agent')
      .addConditionalEdges('agent', toolsCondition, ['tools', END]);
    let guard;
    if (guarded) {
      guard = timed(loopGuard(), ['node'], clock);
      graph
        .addNode('loopguard', guard.node)
        .addEdge('tools', 'loopguard')
        .addConditionalEdges('loopguard', guard.route('agent'), ['agent', END]);
    } else graph.addEdge('tools', 'agent');
    await graph
      .compile()
      .invoke({ messages: [new HumanMessage('Work.')] }, { recursionLimit: steps * 3 + 10 });
    return { steps: call - 1, nudges: guard ? guard.run.nudges.length : 0 };
  };
}

/**
 * A minimal scripted Messages API for the Claude Agent SDK drive (the tests have the full one in
 * packages/cli/test): reply `n` to a request with tools is a Bash call of `command(n)` while
 * `n < steps`, then a text.
 */
async function scriptedMessagesApi(steps) {
  const { createServer } = await import('node:http');
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      const json = body === '' ? {} : JSON.parse(body);
      if (!req.url?.startsWith('/v1/messages') || req.url.includes('count_tokens') || json.stream !== true) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            id: 'm',
            type: 'message',
            role: 'assistant',
            model: 'm',
            content: [{ type: 'text', text: 'ok' }],
            stop_reason: 'end_turn',
            usage: { input_tokens: 1, output_tokens: 1 },
          }),
        );
        return;
      }
      const turn = (json.messages ?? []).filter((m) => m.role === 'assistant').length;
      const tool = json.tools?.length > 0 && turn < steps;
      const block = tool
        ? { type: 'tool_use', id: `toolu_${turn}`, name: 'Bash', input: {} }
        : { type: 'text', text: '' };
      const delta = tool
        ? {
            type: 'input_json_delta',
            partial_json: JSON.stringify({
              command: `echo ${turn} > f${turn}.txt`,
              description: `step ${turn}`,
            }),
          }
        : { type: 'text_delta', text: 'Done.' };
      const events = [
        [
          'message_start',
          {
            type: 'message_start',
            message: {
              id: `msg_${turn}`,
              type: 'message',
              role: 'assistant',
              model: 'm',
              content: [],
              stop_reason: null,
              usage: { input_tokens: 1, output_tokens: 1 },
            },
          },
        ],
        ['content_block_start', { type: 'content_block_start', index: 0, content_block: block }],
        ['content_block_delta', { type: 'content_block_delta', index: 0, delta }],
        ['content_block_stop', { type: 'content_block_stop', index: 0 }],
        [
          'message_delta',
          {
            type: 'message_delta',
            delta: { stop_reason: tool ? 'tool_use' : 'end_turn' },
            usage: { output_tokens: 1 },
          },
        ],
        ['message_stop', { type: 'message_stop' }],
      ];
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const [event, data] of events) res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
      res.end();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(r);
      }),
  };
}

export async function claudeAgentSdk(claudeBinary) {
  const { mkdtempSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { query } = await load('@anthropic-ai/claude-agent-sdk');
  const { loopGuard } = await adapter('claude-agent-sdk');
  return async function drive(steps, guarded, clock) {
    const api = await scriptedMessagesApi(steps);
    const guard = guarded ? loopGuard() : undefined;
    if (guard) {
      for (const matchers of Object.values(guard.hooks))
        for (const matcher of matchers) timed(matcher, ['hooks'], clock);
    }
    let turns = 0;
    try {
      const messages = query({
        prompt: 'Work.',
        options: {
          cwd: mkdtempSync(join(tmpdir(), 'loopguard-bench-sdk-')),
          pathToClaudeCodeExecutable: claudeBinary,
          permissionMode: 'bypassPermissions',
          allowDangerouslySkipPermissions: true,
          settingSources: [],
          ...(guard ? { hooks: guard.hooks } : {}),
          env: {
            PATH: process.env.PATH ?? '/usr/bin:/bin',
            ANTHROPIC_BASE_URL: api.url,
            ANTHROPIC_API_KEY: 'bench',
            DISABLE_TELEMETRY: '1',
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
            DISABLE_AUTOUPDATER: '1',
            HOME: mkdtempSync(join(tmpdir(), 'loopguard-bench-home-')),
            ...(process.getuid?.() === 0 ? { IS_SANDBOX: '1' } : {}),
          },
        },
      });
      for await (const message of messages) if (message.type === 'assistant') turns++;
    } finally {
      await api.close();
    }
    return { steps: turns - 1, nudges: guard ? guard.run.nudges.length : 0 };
  };
}
