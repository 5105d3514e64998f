import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HOOKS_REMOVED_REFUSED } from '../src/hook/hooksRemovedCall.js';
import { OWN_STATE_REFUSED } from '../src/hook/ownStateCall.js';
import { TERMINAL_SHELL_REFUSED } from '../src/hook/terminalShellCall.js';
import {
  UNHOOKED_AGENT_REFUSED,
  UNHOOKED_HOME_REFUSED,
  UNHOOKED_TRUST_REFUSED,
} from '../src/hook/unhookedAgentCall.js';
import type { ScanReport } from '../src/scan/scanReport.js';
import {
  claudeNudge,
  claudeSession,
  claudeStop,
  NUDGE,
  STOP,
  scan,
  scanIn,
  scanJson,
} from './guardTranscripts.js';

// scan recognises loopguard's own nudges and stops in a transcript (its hooks were on) and reports
// them as what they were (issue 35), in the record shapes Claude Code 2.1.330, Gemini CLI 0.61.0
// and Codex 0.169.0 wrote offline; a tool's output or the model's text that reads the same is not one.

describe('scan reports what loopguard itself did in a session', () => {
  it('Claude Code: a session loopguard denied at call 4 is "stopped by loopguard at call 4", its waste from there', async () => {
    const lines = claudeSession(4, { 3: [claudeNudge(3)], 4: [claudeStop(4)] }, 4);
    const report = await scanJson(lines);
    const [loop, ...others] = report.sessions[0]?.loops ?? [];
    expect(others).toEqual([]);
    expect(loop).toMatchObject({
      kind: 'same_error',
      loopguard: 'stopped',
      nudgeCall: 3,
      stopCall: 4,
      ended: 'stopped_by_loopguard',
      wastedToolCalls: 0,
      wastedTokens: 0,
      // the message as status --session and the dashboard quote its entry: no hook's `loopguard: `, its kind in words (doors71)
      message:
        'Stopped (same error): the loop went on after the nudge; the same action failed with the same error 4 times, since call 1.',
    });
    expect(report.totals).toMatchObject({
      stoppedByLoopguard: 1,
      sessionsWithLoops: 1,
      nudgesWithoutStop: 0,
    });
    // the denied call did not run: "3 tool calls ran", as status and the status line say
    expect(report.sessions[0]).toMatchObject({ toolCalls: 3, deniedCalls: 1 });
    expect(report.totals).toMatchObject({ toolCalls: 3, deniedCalls: 1 });
    const out = await scan(lines);
    expect(out).toContain('1 session, 3 tool calls ran, 1 refused by loopguard.');
    expect(out).toContain('call 4 (by loopguard)');
    // nothing ran after loopguard's stop: no session "looped past" it
    expect(out).toContain('loopguard stopped 1 session in a loop: nothing spent after the stop.');
    expect(out).not.toMatch(/looped (past|where)/);
    expect(out).not.toContain('Nudged, never stopped');
  });

  it("loopguard's stop is the stop, where the scan's own options would have stopped earlier", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'loopguard-scan-guard-'));
    // a stricter scan than the hooks were: its replay nudges at call 2 and stops at call 3
    writeFileSync(
      join(dir, 'loopguard.config.yaml'),
      'hook:\n  sameErrorThreshold: 2\n  verbatimThreshold: 2\n',
    );
    const replay = JSON.parse(await scanIn(dir, claudeSession(5, {}), '--json')) as ScanReport;
    expect(replay.sessions[0]?.loops[0]?.stopCall).toBeLessThan(5);
    const lines = claudeSession(5, { 3: [claudeNudge(3)], 5: [claudeStop(5, 'PostToolUseFailure')] });
    const report = JSON.parse(await scanIn(dir, lines, '--json')) as ScanReport;
    const stopped = report.sessions[0]?.loops.find((loop) => loop.loopguard === 'stopped');
    expect(stopped).toMatchObject({ stopCall: 5, wastedToolCalls: 0, ended: 'stopped_by_loopguard' });
  });

  it('Claude Code: a session resumed after loopguard stopped it wastes the calls after the stop', async () => {
    const lines = claudeSession(7, { 3: [claudeNudge(3)], 4: [claudeStop(4, 'PostToolUseFailure')] });
    const [loop] = (await scanJson(lines)).sessions[0]?.loops ?? [];
    expect(loop).toMatchObject({ loopguard: 'stopped', stopCall: 4, endCall: 7, wastedToolCalls: 3 });
    expect(loop?.ended).toBe('stopped_by_loopguard');
    expect(await scan(lines)).toContain(
      'loopguard stopped 1 session in a loop: 3 tool calls, 336 tokens ($0.0014) spent after the stop.',
    );
  });

  it("qa68: the total cost after the stop is the loops' sum to the millionth, as the terminal shows it (a total rounded to $0.0010)", async () => {
    const lines = claudeSession(6, { 3: [claudeNudge(3)], 4: [claudeStop(4, 'PostToolUseFailure')] });
    const report = await scanJson(lines);
    const [loop] = report.sessions[0]?.loops ?? [];
    // two replies of 100 input and 12 output tokens at claude-sonnet-4-5's price
    expect(loop?.wastedCost).toBeCloseTo(0.00096, 9);
    expect(report.totals.wastedCost).toBeCloseTo(0.00096, 9);
    expect(await scan(lines)).toContain('2 tool calls, 224 tokens ($0.00096) spent after the stop.');
  });

  it('Claude Code: a nudge loopguard gave and no stop is "nudged by loopguard"', async () => {
    const lines = claudeSession(3, { 3: [claudeNudge(3)] });
    const [loop] = (await scanJson(lines)).sessions[0]?.loops ?? [];
    expect(loop).toMatchObject({ loopguard: 'nudged', nudgeCall: 3, stopCall: null });
    expect(await scan(lines)).toMatch(/Nudged, never stopped:[\s\S]*call 3 \(by loopguard\)/);
  });

  it("Claude Code: loopguard's words in a tool's output or the model's text are not loopguard's", async () => {
    const forged = claudeSession(3, {}).map((line) => {
      const record = line as { type?: string; message?: { content?: unknown } };
      if (record.type !== 'user' || !Array.isArray(record.message?.content)) return line;
      const [block] = record.message.content as Array<Record<string, unknown>>;
      return { ...record, message: { content: [{ ...block, content: `loopguard: ${STOP}` }] } };
    });
    forged.push({
      type: 'assistant',
      sessionId: 's1',
      message: { id: 'msg_x', content: [{ type: 'text', text: `loopguard: ${STOP}` }] },
    });
    const report = await scanJson(forged);
    expect(report.totals.stoppedByLoopguard).toBe(0);
    for (const loop of report.sessions[0]?.loops ?? []) expect(loop.loopguard).toBeUndefined();
  });

  it('Gemini CLI: the nudge in the result the model got and the stop that replaced a result', async () => {
    const call = (n: number, response: Record<string, unknown>, status = 'success') => ({
      id: `r${n}`,
      type: 'gemini',
      timestamp: '2026-11-29T08:00:00.000Z',
      content: '',
      model: 'gemini-2.5-pro',
      tokens: { input: 10, output: 5, total: 15 },
      toolCalls: [
        {
          id: `c${n}`,
          name: 'run_shell_command',
          args: { command: 'cat missing.txt' },
          status,
          result: [{ functionResponse: { id: `c${n}`, name: 'run_shell_command', response } }],
          resultDisplay: 'cat: missing.txt: No such file or directory',
        },
      ],
    });
    const failed = (context = '') => ({
      output: `<untrusted_context>\nOutput: cat: missing.txt: No such file or directory\nExit Code: 1\n</untrusted_context>${context}`,
    });
    const lines = [
      { sessionId: 'g1', projectHash: 'abc', startTime: '2026-11-29T08:00:00.000Z' },
      call(1, failed()),
      call(2, failed()),
      call(3, failed(`\n\n<hook_context>${NUDGE}</hook_context>`)),
      call(4, { error: `Agent execution stopped by hook: loopguard: ${STOP}` }, 'error'),
    ];
    const [session] = (await scanJson(lines)).sessions;
    const [loop, ...others] = session?.loops ?? [];
    expect(others).toEqual([]);
    expect(loop).toMatchObject({
      loopguard: 'stopped',
      nudgeCall: 3,
      stopCall: 4,
      ended: 'stopped_by_loopguard',
    });
    // the stop before the call (BeforeTool's deny: Gemini CLI prefixes its reason) refused call 4:
    // 3 tool calls ran, as the hooks count them (qa39)
    expect(session).toMatchObject({ toolCalls: 3, deniedCalls: 1 });
    // a stop after the call (AfterTool's `continue: false`: its reason alone) came after call 4 ran
    lines[4] = call(4, { error: `loopguard: ${STOP}` }, 'error');
    expect((await scanJson(lines)).sessions[0]).toMatchObject({ toolCalls: 4, deniedCalls: 0 });
  });

  it("loopguard's nudge the replay did not find stays its own loop: a replay's nudge calls later is another", async () => {
    // the hooks (stricter) nudged at call 1; the replay finds the loop at call 3 on its own
    const loops = (await scanJson(claudeSession(3, { 1: [claudeNudge(1)] }))).sessions[0]?.loops ?? [];
    expect(loops.map((loop) => [loop.nudgeCall, loop.loopguard ?? 'replay'])).toEqual([
      [1, 'nudged'],
      [3, 'replay'],
    ]);
  });

  it('qa68: a loop known only from a stop that names no call has the call it fell at as its evidence', async () => {
    // two failing calls (too few for the replay), then loopguard's stop after the second: its
    // message is one line (Gemini CLI's stops, a stop after the nudge), with no "- call n:" to quote
    const lines = claudeSession(2, { 2: [claudeStop(2, 'PostToolUseFailure')] });
    const [loop] = (await scanJson(lines)).sessions[0]?.loops ?? [];
    expect(loop).toMatchObject({ loopguard: 'stopped', stopCall: 2 });
    expect(loop?.evidence).toBe(
      'Bash cat missing.txt → error "Exit code 1 cat: missing.txt: No such file or directory"',
    );
  });

  it("a session loopguard's spend guard stopped says so (Claude Code's stop, Codex's denial): the verdict status gives it", async () => {
    const SPEND = 'loopguard: this session reached its budget ($0.56 of $0.50); loopguard stopped it.';
    const claude = claudeSession(2, {
      2: [
        {
          type: 'attachment',
          isSidechain: false,
          attachment: { type: 'hook_stopped_continuation', message: SPEND, hookName: 'PostToolUse:Bash' },
        },
      ],
    });
    const item = (payload: Record<string, unknown>) => ({
      timestamp: '2026-11-29T08:00:00.000Z',
      type: 'response_item',
      payload,
    });
    const codex = [
      { timestamp: '2026-11-29T08:00:00.000Z', type: 'session_meta', payload: { id: 'x1', cwd: '/tmp/app' } },
      item({ type: 'function_call', name: 'exec_command', arguments: '{"cmd":"ls"}', call_id: 'c1' }),
      item({
        type: 'function_call_output',
        call_id: 'c1',
        output: 'Chunk ID: a1\nProcess exited with code 0\nOutput:\na.txt\n',
      }),
      item({ type: 'function_call', name: 'exec_command', arguments: '{"cmd":"cat a.txt"}', call_id: 'c2' }),
      item({
        type: 'function_call_output',
        call_id: 'c2',
        output: `Command blocked by PreToolUse hook: ${SPEND}. Command: cat a.txt`,
      }),
    ];
    for (const [lines, agent, id] of [
      [claude, 'claude', 's1'],
      [codex, 'codex', 'x1'],
    ] as const) {
      const report = await scanJson(lines);
      expect(report.sessions[0]).toMatchObject({
        loops: [],
        spendStop: { call: 2, message: expect.stringMatching(/^loopguard: this session reached its budget/) },
      });
      expect(report.totals).toMatchObject({ stoppedOnSpendByLoopguard: 1, stoppedByLoopguard: 0 });
      const out = await scan(lines);
      expect(out).toContain("loopguard's spend guard stopped 1 session at its budget");
      // doors71: the session named, its verdict in status's words
      expect(out).toContain(`\n  ${agent} ${id}: stopped on spend at call 2\n`);
    }
  });

  it("a call loopguard refused (the model's own call against its state) is denied, not run, in every agent; a tool's output that reads the same is not", async () => {
    const refused = (text: string) => `PreToolUse:Bash hook error: ${text}`;
    const base = {
      sessionId: 's1',
      cwd: '/tmp/app',
      isSidechain: false,
      timestamp: '2026-11-29T08:00:00.000Z',
    };
    const claudeCall = (n: number, command: string, result: Record<string, unknown>) => [
      {
        ...base,
        type: 'assistant',
        message: {
          id: `msg_${n}`,
          role: 'assistant',
          model: 'claude-sonnet-4-5',
          content: [{ type: 'tool_use', id: `toolu_${n}`, name: 'Bash', input: { command } }],
          usage: { input_tokens: 100, output_tokens: 12 },
        },
      },
      { ...base, type: 'user', ...result },
    ];
    const toolResult = (n: number, content: string, isError: boolean) => ({
      message: {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: `toolu_${n}`, content, is_error: isError }],
      },
    });
    const claude = [
      { ...base, type: 'user', message: { role: 'user', content: 'Fix the bug.' } },
      ...claudeCall(1, 'git status', {
        ...toolResult(1, 'On branch main', false),
        toolUseResult: { stdout: 'On branch main' },
      }),
      // Claude Code 2.1.330: the denial's record names the hook that rejected the call
      ...claudeCall(2, 'sqlite3 .loopguard/state.db .dump', {
        ...toolResult(2, refused(OWN_STATE_REFUSED), true),
        toolUseResult: `Error: ${refused(OWN_STATE_REFUSED)}`,
        permissionDecision: {
          decision: 'reject',
          source: 'hook',
          reasonType: 'hook',
          reasonCode: 'hook:PreToolUse',
        },
      }),
      // the same words printed by the command: it ran
      ...claudeCall(3, 'cat notes.txt', {
        ...toolResult(3, refused(OWN_STATE_REFUSED), false),
        toolUseResult: { stdout: refused(OWN_STATE_REFUSED) },
      }),
    ];
    expect((await scanJson(claude)).sessions[0]).toMatchObject({ toolCalls: 2, deniedCalls: 1, loops: [] });
    // the model asks for the refused call over and over: counted, never observed, as the hooks
    // count it (no attempt, no loop); the failure after the refusals is the third of a row (codex47)
    const refusedCall = (n: number) =>
      claudeCall(n, 'sqlite3 .loopguard/state.db .dump', {
        ...toolResult(n, refused(OWN_STATE_REFUSED), true),
        toolUseResult: `Error: ${refused(OWN_STATE_REFUSED)}`,
        permissionDecision: {
          decision: 'reject',
          source: 'hook',
          reasonType: 'hook',
          reasonCode: 'hook:PreToolUse',
        },
      });
    const failing = (n: number) =>
      claudeCall(n, 'npm test', { ...toolResult(n, 'npm ERR! Test failed.', true), toolUseResult: 'Error' });
    const repeated = [
      claude[0],
      ...failing(1),
      ...failing(2),
      ...[3, 4, 5, 6, 7].flatMap(refusedCall),
      ...failing(8),
    ];
    expect((await scanJson(repeated)).sessions[0]).toMatchObject({
      toolCalls: 3,
      deniedCalls: 5,
      loops: [expect.objectContaining({ kind: 'same_error', nudgeCall: 8 })],
    });

    const gemini = [
      { sessionId: 'g1', projectHash: 'abc', startTime: '2026-11-29T08:00:00.000Z' },
      ...[
        ['git status', { output: 'On branch main' }, 'success'],
        [
          'sqlite3 .loopguard/state.db .dump',
          { error: `Tool execution blocked: ${OWN_STATE_REFUSED}` },
          'error',
        ],
      ].map(([command, response, status], n) => ({
        id: `r${n}`,
        type: 'gemini',
        timestamp: '2026-11-29T08:00:00.000Z',
        content: '',
        model: 'gemini-2.5-pro',
        tokens: { input: 10, output: 5, total: 15 },
        toolCalls: [
          {
            id: `c${n}`,
            name: 'run_shell_command',
            args: { command },
            status,
            result: [{ functionResponse: { id: `c${n}`, name: 'run_shell_command', response } }],
          },
        ],
      })),
    ];
    expect((await scanJson(gemini)).sessions[0]).toMatchObject({ toolCalls: 1, deniedCalls: 1, loops: [] });
    // the refused call asked for five times more: no loop (codex47)
    const refusedReply = gemini[2] as { id: string; toolCalls: Array<{ id: string }> };
    const geminiAgain = [3, 4, 5, 6, 7].map((n) => ({
      ...refusedReply,
      id: `r${n}`,
      toolCalls: refusedReply.toolCalls.map((call) => ({ ...call, id: `c${n}` })),
    }));
    expect((await scanJson([...gemini, ...geminiAgain])).sessions[0]).toMatchObject({
      toolCalls: 1,
      deniedCalls: 6,
      loops: [],
    });

    const item = (payload: Record<string, unknown>) => ({
      timestamp: '2026-11-29T08:00:00.000Z',
      type: 'response_item',
      payload,
    });
    const codex = [
      { timestamp: '2026-11-29T08:00:00.000Z', type: 'session_meta', payload: { id: 'x1', cwd: '/tmp/app' } },
      item({ type: 'function_call', name: 'exec_command', arguments: '{"cmd":"git status"}', call_id: 'c1' }),
      item({
        type: 'function_call_output',
        call_id: 'c1',
        output: 'Chunk ID: a1\nProcess exited with code 0\nOutput:\nOn branch main\n',
      }),
      item({
        type: 'function_call',
        name: 'exec_command',
        arguments: '{"cmd":"sqlite3 .loopguard/state.db .dump"}',
        call_id: 'c2',
      }),
      item({
        type: 'function_call_output',
        call_id: 'c2',
        output: `Command blocked by PreToolUse hook: ${OWN_STATE_REFUSED}. Command: sqlite3 .loopguard/state.db .dump`,
      }),
    ];
    const report = await scanJson(codex);
    expect(report.sessions[0]).toMatchObject({ toolCalls: 1, deniedCalls: 1, loops: [] });
    expect(report.totals).toMatchObject({ stoppedByLoopguard: 0, stoppedOnSpendByLoopguard: 0 });
    // the refused call asked for five times more: no loop (codex47)
    const again = [3, 4, 5, 6, 7].flatMap((n) => [
      {
        ...(codex[3] as object),
        payload: { ...(codex[3] as { payload: object }).payload, call_id: `c${n}` },
      },
      {
        ...(codex[4] as object),
        payload: { ...(codex[4] as { payload: object }).payload, call_id: `c${n}` },
      },
    ]);
    expect((await scanJson([...codex, ...again])).sessions[0]).toMatchObject({
      toolCalls: 1,
      deniedCalls: 6,
      loops: [],
    });
  });

  it("Codex: loopguard's refusal of a shell kept open for typed commands is a denied call, not one that ran (stdin63)", async () => {
    const item = (payload: Record<string, unknown>) => ({
      timestamp: '2026-11-29T08:00:00.000Z',
      type: 'response_item',
      payload,
    });
    const report = await scanJson([
      { timestamp: '2026-11-29T08:00:00.000Z', type: 'session_meta', payload: { id: 'x1', cwd: '/tmp/app' } },
      item({
        type: 'function_call',
        name: 'exec_command',
        arguments: '{"cmd":"sh","tty":true}',
        call_id: 'c1',
      }),
      item({
        type: 'function_call_output',
        call_id: 'c1',
        output: `Command blocked by PreToolUse hook: ${TERMINAL_SHELL_REFUSED}. Command: sh`,
      }),
    ]);
    expect(report.sessions[0]).toMatchObject({ toolCalls: 0, deniedCalls: 1, loops: [] });
  });

  it.each([
    ['rm "$CODEX_HOME/hooks.json"', HOOKS_REMOVED_REFUSED],
    ['codex exec --disable hooks "go"', UNHOOKED_AGENT_REFUSED],
    // trust65: a nested agent with another home
    ['CODEX_HOME=/tmp/x codex exec "go"', UNHOOKED_HOME_REFUSED],
    // trust66: a nested Gemini CLI with the project untrusted by its environment
    ['GEMINI_RESTRICTED_MODE=true gemini -p "go"', UNHOOKED_TRUST_REFUSED],
  ])(
    "Codex: loopguard's refusal of %s is a denied call, not one that ran (trust64)",
    async (cmd, refusal) => {
      const item = (payload: Record<string, unknown>) => ({
        timestamp: '2026-11-29T08:00:00.000Z',
        type: 'response_item',
        payload,
      });
      const report = await scanJson([
        {
          timestamp: '2026-11-29T08:00:00.000Z',
          type: 'session_meta',
          payload: { id: 'x1', cwd: '/tmp/app' },
        },
        item({
          type: 'function_call',
          name: 'exec_command',
          arguments: JSON.stringify({ cmd }),
          call_id: 'c1',
        }),
        item({
          type: 'function_call_output',
          call_id: 'c1',
          output: `Command blocked by PreToolUse hook: ${refusal}. Command: ${cmd}`,
        }),
      ]);
      expect(report.sessions[0]).toMatchObject({ toolCalls: 0, deniedCalls: 1, loops: [] });
    },
  );

  it("Codex: the hook's context (a developer message) and the denial of a call", async () => {
    const lines = codexSession(4);
    const [loop] = (await scanJson(lines)).sessions[0]?.loops ?? [];
    expect(loop).toMatchObject({
      loopguard: 'stopped',
      nudgeCall: 3,
      stopCall: 4,
      ended: 'stopped_by_loopguard',
    });
  });

  it('Codex: one loop, nudged and stopped by loopguard, in the order Codex 0.169.0 writes it and with every further repeat denied', async () => {
    // the hook's context comes before the output of the call it follows; calls 5 to 7 are denied too
    const lines = codexSession(7);
    const report = await scanJson(lines);
    expect(report.sessions[0]?.loops).toEqual([
      expect.objectContaining({
        kind: 'same_error',
        loopguard: 'stopped',
        nudgeCall: 3,
        stopCall: 4,
        endCall: 7,
        ended: 'stopped_by_loopguard',
      }),
    ]);
    expect(report.totals).toMatchObject({
      stoppedByLoopguard: 1,
      sessionsWithLoops: 1,
      nudgesWithoutStop: 0,
    });
    // calls 4 to 7 were refused before they ran: 3 ran, as status and the dashboard count them
    expect(report.sessions[0]).toMatchObject({ toolCalls: 3, deniedCalls: 4 });
    const out = await scan(lines);
    expect(out).toContain('1 session, 3 tool calls ran, 4 refused by loopguard.');
    // the calls after the stop were asked for and refused: they did not run
    expect(report.sessions[0]?.loops[0]).toMatchObject({ wastedToolCalls: 3, wastedDeniedCalls: 3 });
    expect(out).toContain('loopguard stopped 1 session in a loop: 3 tool calls (3 refused) spent');
    expect(out).toMatch(/\| 3 calls \(3 refused\) +\|/);
    // doors71: one word for a call loopguard did not let run, as status, the dashboard and the model's message say it
    expect(out).not.toMatch(/\bdenied\b/);
    expect(out).not.toContain('Nudged, never stopped');
  });

  it('Claude Code: a stop after the call ran denies nothing (every call ran)', async () => {
    const lines = claudeSession(4, { 3: [claudeNudge(3)], 4: [claudeStop(4, 'PostToolUseFailure')] });
    const report = await scanJson(lines);
    expect(report.sessions[0]).toMatchObject({ toolCalls: 4, deniedCalls: 0 });
    expect(await scan(lines)).toContain('1 session, 4 tool calls ran.');
  });
});

/**
 * A Codex 0.169.0 rollout with loopguard's hooks on: `calls` runs of the same failing command, the
 * hook's nudge (a developer message) written between call 3 and its output, as Codex writes it,
 * and every call from the fourth denied before it runs.
 */
function codexSession(calls: number): unknown[] {
  const item = (payload: Record<string, unknown>) => ({
    timestamp: '2026-11-29T08:00:00.000Z',
    type: 'response_item',
    payload,
  });
  const lines: unknown[] = [
    { timestamp: '2026-11-29T08:00:00.000Z', type: 'session_meta', payload: { id: 'x1', cwd: '/tmp/app' } },
  ];
  for (let n = 1; n <= calls; n++) {
    lines.push(
      item({
        type: 'function_call',
        name: 'exec_command',
        arguments: '{"cmd":"cat missing.txt"}',
        call_id: `c${n}`,
      }),
    );
    if (n === 3) {
      lines.push(
        item({
          type: 'message',
          role: 'developer',
          content: [{ type: 'input_text', text: NUDGE }],
          internal_chat_message_metadata_passthrough: { content_item_kinds: ['hooks.additional_context'] },
        }),
      );
    }
    lines.push(
      item({
        type: 'function_call_output',
        call_id: `c${n}`,
        output:
          n >= 4
            ? `Command blocked by PreToolUse hook: ${STOP}\nloopguard refused this call, and refuses every repeat of it.. Command: cat missing.txt`
            : 'Chunk ID: a1\nWall time: 0.0 seconds\nProcess exited with code 1\nOutput:\ncat: missing.txt: No such file or directory\n',
      }),
    );
  }
  return lines;
}
