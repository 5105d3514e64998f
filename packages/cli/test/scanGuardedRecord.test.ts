import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { answerHookEvent } from '../src/hook/runHook.js';
import { runCli } from '../src/main.js';
import type { ScannedSession } from '../src/scan/scannedSession.js';
import type { ScanReport } from '../src/scan/scanReport.js';
import { EXIT_CODES } from '../src/terminal/exitCodes.js';
import { bufferedIo } from './helpers.js';
import { claudeFailingCall, geminiEvent } from './hookHelpers.js';

// scan49: a session the hooks guarded is one session in every door. Before, `scan` named a session
// started in `repo/src` by `repo/src` while `status`, the dashboard and the status line name it by
// the project loopguard keeps it in (`repo`, qa47), and `scan` never said what loopguard's record
// holds where the transcript tells it otherwise. Each session below is guarded through the hooks'
// own code (`answerHookEvent`) and its transcript written as the agent's CLI writes it.

/** A repository (a `.git` folder) with `src`, and loopguard's configuration at its root. */
function repository(): { root: string; src: string } {
  const root = mkdtempSync(join(tmpdir(), 'loopguard-scan49-'));
  mkdirSync(join(root, '.git'));
  writeFileSync(join(root, 'loopguard.config.yaml'), 'hook:\n  enabled: true\n');
  const src = join(root, 'src');
  mkdirSync(src);
  return { root, src };
}

const line = (record: unknown) => `${JSON.stringify(record)}\n`;
const time = (n: number) => `2026-11-29T08:00:${String(n).padStart(2, '0')}.000Z`;

/**
 * A Claude Code session `session` started in `dir`: `calls` failing Bash calls guarded by the hooks,
 * and the transcript Claude Code 2.1.330 writes of it (each call, its result, the hooks' answers as
 * its attachments; `answers: false` leaves them out). Returns the transcript's path.
 */
async function guardedClaude(
  dir: string,
  session: string,
  calls: number,
  {
    answers = true,
    file = join(mkdtempSync(join(tmpdir(), 'loopguard-scan49-claude-')), `${session}.jsonl`),
    inputTokens = 1000,
    unheeded = false,
  }: { answers?: boolean; file?: string; inputTokens?: number; unheeded?: boolean } = {},
): Promise<string> {
  const base = { sessionId: session, cwd: dir, isSidechain: false };
  const hook = (event: unknown) =>
    answerHookEvent('claude', JSON.stringify(event), { env: { CLAUDE_PROJECT_DIR: dir }, cwd: dir });
  const attachment = (n: number, fields: Record<string, unknown>) => {
    if (answers)
      appendFileSync(file, line({ ...base, type: 'attachment', timestamp: time(n), attachment: fields }));
  };
  for (let n = 1; n <= calls; n++) {
    const call = claudeFailingCall(dir, session, n);
    const reply = line({
      ...base,
      type: 'assistant',
      timestamp: time(n),
      requestId: `req_${n}`,
      message: {
        id: `msg_${n}`,
        model: 'claude-sonnet-4-5',
        role: 'assistant',
        content: [{ type: 'tool_use', id: `toolu_${n}`, name: 'Bash', input: call.input }],
        usage: { input_tokens: inputTokens, output_tokens: 50 },
      },
    });
    // the reply is in the transcript when its call's PreToolUse runs (the spend guard reads it there)
    if (answers) appendFileSync(file, reply);
    const pre = await hook(call.pre);
    // without the answers, the transcript ends before the call loopguard stopped (one cut short),
    // or, `unheeded`, holds it as a call that ran
    if (pre !== '' && !answers && !unheeded) break;
    if (!answers) appendFileSync(file, reply);
    if (pre !== '' && answers) {
      // the stop before the call: Claude Code denies it and ends the session
      const reason = (JSON.parse(pre) as { stopReason: string }).stopReason;
      attachment(n, { type: 'hook_stopped_continuation', message: reason, hookEvent: 'PreToolUse' });
      break;
    }
    appendFileSync(
      file,
      line({
        ...base,
        type: 'user',
        timestamp: time(n),
        message: {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: `toolu_${n}`, is_error: true, content: call.error }],
        },
      }),
    );
    if (pre !== '') break;
    const post = await hook(call.post);
    const context = post === '' ? undefined : JSON.parse(post).hookSpecificOutput?.additionalContext;
    if (context !== undefined)
      attachment(n, { type: 'hook_additional_context', content: [context], hookEvent: 'PostToolUseFailure' });
  }
  return file;
}

/**
 * A Codex 0.169.0 session `session` started in `dir`: `calls` failing `cat missing.txt` calls, its
 * rollout written as Codex writes it (the hooks read whether a call failed there) and each call
 * guarded by the hooks; a denied call's output is Codex's `Command blocked by PreToolUse hook: …`.
 */
async function guardedCodex(dir: string, session: string, calls: number): Promise<string> {
  const file = join(mkdtempSync(join(tmpdir(), 'loopguard-scan49-codex-')), `rollout-${session}.jsonl`);
  const item = (n: number, payload: Record<string, unknown>) =>
    appendFileSync(file, line({ timestamp: time(n), type: 'response_item', payload }));
  appendFileSync(
    file,
    line({ timestamp: time(0), type: 'session_meta', payload: { id: session, cwd: dir } }),
  );
  appendFileSync(
    file,
    line({ timestamp: time(0), type: 'turn_context', payload: { cwd: dir, model: 'gpt-5' } }),
  );
  const event = (name: string, n: number, fields: Record<string, unknown> = {}) =>
    answerHookEvent(
      'codex',
      JSON.stringify({
        session_id: session,
        turn_id: 't1',
        transcript_path: file,
        cwd: dir,
        hook_event_name: name,
        model: 'gpt-5',
        permission_mode: 'bypassPermissions',
        tool_name: 'Bash',
        tool_input: { command: 'cat missing.txt' },
        tool_use_id: `call_${n}`,
        ...fields,
      }),
      { env: {}, cwd: dir },
    );
  for (let n = 1; n <= calls; n++) {
    item(n, {
      type: 'function_call',
      name: 'exec_command',
      arguments: '{"cmd":"cat missing.txt"}',
      call_id: `call_${n}`,
    });
    const pre = await event('PreToolUse', n);
    if (pre !== '') {
      const reason = JSON.parse(pre).hookSpecificOutput.permissionDecisionReason as string;
      item(n, {
        type: 'function_call_output',
        call_id: `call_${n}`,
        output: `Command blocked by PreToolUse hook: ${reason}. Command: cat missing.txt`,
      });
      continue;
    }
    const output = 'cat: missing.txt: No such file or directory\n';
    item(n, {
      type: 'function_call_output',
      call_id: `call_${n}`,
      output: `Chunk ID: c${n}\nWall time: 0.0000 seconds\nProcess exited with code 1\nOriginal token count: 11\nOutput:\n${output}`,
    });
    const post = await event('PostToolUse', n, { tool_response: output });
    const context =
      post === '' ? undefined : (JSON.parse(post).hookSpecificOutput?.additionalContext as string);
    if (context !== undefined)
      item(n, {
        type: 'message',
        role: 'developer',
        content: [{ type: 'input_text', text: context }],
        internal_chat_message_metadata_passthrough: { content_item_kinds: ['hooks.additional_context'] },
      });
  }
  return file;
}

/**
 * A Gemini CLI 0.61.0 session `session` started in `dir`: `calls` failing shell calls guarded by the
 * hooks, and its chat filed in `tmp/<name>` with `.project_root` naming `dir`, each result as the
 * model got it (with the hook's context; a call stopped before it ran is the stop's error).
 */
async function guardedGemini(dir: string, session: string, calls: number): Promise<string> {
  const folder = join(mkdtempSync(join(tmpdir(), 'loopguard-scan49-gemini-')), 'tmp', 'proj');
  mkdirSync(join(folder, 'chats'), { recursive: true });
  writeFileSync(join(folder, '.project_root'), dir);
  const file = join(folder, 'chats', 'session-1.jsonl');
  appendFileSync(file, line({ sessionId: session, projectHash: 'abc', startTime: time(0) }));
  const shell = { tool_name: 'run_shell_command', tool_input: { command: 'cat missing.txt' } };
  const failed =
    '<untrusted_context>\nOutput: cat: missing.txt: No such file or directory\nExit Code: 1\n</untrusted_context>';
  const hook = (name: string, fields: Record<string, unknown>) =>
    answerHookEvent('gemini', JSON.stringify(geminiEvent(dir, session, name, fields)), { env: {}, cwd: dir });
  for (let n = 1; n <= calls; n++) {
    const before = await hook('BeforeTool', shell);
    let result: { status: string; output?: string; error?: string };
    if (before !== '') {
      // Gemini CLI writes the stop's `stopReason` as the denied call's error
      const reason = (JSON.parse(before) as { stopReason: string }).stopReason;
      result = { status: 'error', error: `Agent execution stopped by hook: ${reason}` };
    } else {
      const after = await hook('AfterTool', {
        ...shell,
        tool_response: { llmContent: failed, returnDisplay: '' },
      });
      const context = after === '' ? undefined : JSON.parse(after).hookSpecificOutput?.additionalContext;
      result = {
        status: 'success',
        output: context === undefined ? failed : `${failed}\n\n<hook_context>${context}</hook_context>`,
      };
    }
    appendFileSync(
      file,
      line({
        id: `r${n}`,
        type: 'gemini',
        timestamp: time(n),
        content: '',
        model: 'gemini-2.5-pro',
        tokens: { input: 10, output: 5, total: 15 },
        toolCalls: [
          {
            id: `c${n}`,
            name: 'run_shell_command',
            args: { command: 'cat missing.txt' },
            status: result.status,
            result: [
              {
                functionResponse: {
                  id: `c${n}`,
                  name: 'run_shell_command',
                  response: result.error === undefined ? { output: result.output } : { error: result.error },
                },
              },
            ],
          },
        ],
      }),
    );
    if (before !== '') break;
  }
  return file;
}

async function scan(args: string[], cwd: string): Promise<string> {
  const io = bufferedIo({ cwd, env: { NO_COLOR: '1', HOME: cwd } });
  expect(await runCli(['scan', ...args, '--no-cache'], io), io.err()).toBe(EXIT_CODES.ok);
  return io.out();
}

const scanJson = async (file: string, cwd: string, more: string[] = []) =>
  (JSON.parse(await scan([file, '--json', ...more], cwd)) as ScanReport).sessions;

/** What `status --json` says of each session: its project and its sentence. */
async function statusOf(
  cwd: string,
): Promise<Array<{ sessionId: string; projectDir: string; summary: string }>> {
  const io = bufferedIo({ cwd, env: { NO_COLOR: '1', HOME: cwd } });
  expect(await runCli(['status', '--json'], io), io.err()).toBe(EXIT_CODES.ok);
  return JSON.parse(io.out()).sessions.sessions;
}

/** The scan's session as the other doors tell it: its id, project, and the sentence status prints. */
const told = (session: ScannedSession) => ({
  sessionId: session.sessionId,
  projectDir: session.project,
  summary: session.record?.summary,
});

describe('scan and the other doors, one story (scan49)', () => {
  const agents = {
    claude: guardedClaude,
    codex: guardedCodex,
    gemini: guardedGemini,
  } as const;

  for (const [agent, guarded] of Object.entries(agents)) {
    it(`${agent}: a session started in a subfolder is the project's, with status's story, in scan`, async () => {
      const { root, src } = repository();
      const file = await guarded(src, `${agent}-below`, 6);
      const [session] = await scanJson(file, root);
      const [status] = await statusOf(root);
      expect(status?.projectDir).toBe(root);
      expect(session && told(session)).toEqual({
        sessionId: status?.sessionId,
        projectDir: status?.projectDir,
        summary: status?.summary,
      });
      expect(session?.startedIn).toBe(src);
      expect(status?.summary).toMatch(/^stopped by loopguard at call 4 \(same error\), 3 tool calls ran/);
      // the transcript tells the same story: no difference to explain
      expect(session?.recordDiffers).toBeUndefined();
      expect(session?.loops.find((loop) => loop.loopguard === 'stopped')?.stopCall).toBe(4);
      expect(session?.toolCalls).toBe(3);
      // the terminal names it by the project status names
      const terminal = await scan([file], root);
      expect(terminal).toContain(`${root} |`);
      expect(terminal).not.toContain(src);
    });
  }

  it("tells the dollars loopguard's spend guard counted, and says where the scan's prices differ", async () => {
    const { root } = repository();
    const other = repository();
    writeFileSync(
      join(root, 'loopguard.config.yaml'),
      'spend:\n  session:\n    maxCostUsd: 100\n  prices:\n    claude-sonnet-4-5: { input: 1, output: 1, cacheWrite: 1, cacheRead: 1 }\n',
    );
    // where the hooks read its usage (the event's transcript_path); a million tokens a reply
    const file = join(root, 'transcript.jsonl');
    await guardedClaude(root, 'spent', 6, { file, inputTokens: 1_000_000 });
    const [status] = await statusOf(root);
    // the reply that asked for the call loopguard stopped is counted: 4 replies
    expect(status?.summary).toBe(
      'stopped by loopguard at call 4 (same error), 3 tool calls ran, 1 nudge, $4.00 of $100.00',
    );
    // scanned in the project: its prices, one story
    const [here] = await scanJson(file, root);
    expect(here?.record?.summary).toBe(status?.summary);
    expect(here?.costUsd).toBeCloseTo(4.0002, 4);
    expect(here?.recordDiffers).toBeUndefined();
    // sessions53: scanned from another folder (with prices of its own), the session's project's
    // prices still, as its hooks counted: the same story
    writeFileSync(
      join(other.root, 'loopguard.config.yaml'),
      'spend:\n  prices:\n    claude-sonnet-4-5: { input: 9, output: 9, cacheWrite: 9, cacheRead: 9 }\n',
    );
    const [there] = await scanJson(file, other.root);
    expect(there?.project).toBe(root);
    expect(there?.costUsd).toBeCloseTo(4.0002, 4);
    expect(there?.recordDiffers).toBeUndefined();
  });

  it("sessions53: replays a session with its project's detector options wherever scan runs, as its hooks judged it", async () => {
    const { root } = repository();
    const other = repository();
    // the project's hooks never stop a loop of 6 repeats; the folder scanned from has the defaults
    writeFileSync(join(root, 'loopguard.config.yaml'), 'hook:\n  stopAfter: 50\n');
    const file = join(root, 'transcript.jsonl');
    await guardedClaude(root, 'lenient', 6, { file });
    const [status] = await statusOf(root);
    expect(status?.summary).toMatch(/^running, 6 tool calls ran, \d nudges?$/);
    for (const from of [root, other.root]) {
      const [session] = await scanJson(file, from);
      expect(session?.record?.summary, from).toBe(status?.summary);
      expect(
        session?.loops.filter((loop) => loop.stopStep !== null),
        from,
      ).toEqual([]);
      expect(session?.recordDiffers, from).toBeUndefined();
    }
  });

  it("review54: a project's exempt commands are its own, though the folder scanned from lists as many others", async () => {
    const { root } = repository();
    const other = repository();
    // the project's hooks never count `cat`; the folder scanned from exempts another command (a
    // RegExp reads `{}` in JSON: the two setups were taken for one, and the session kept the other's)
    writeFileSync(join(root, 'loopguard.config.yaml'), "hook:\n  exemptCommands: ['^cat ']\n");
    writeFileSync(join(other.root, 'loopguard.config.yaml'), "hook:\n  exemptCommands: ['^make ']\n");
    const file = join(root, 'transcript.jsonl');
    await guardedClaude(root, 'exempt', 6, { file });
    const [status] = await statusOf(root);
    expect(status?.summary).toMatch(/^running, 6 tool calls ran$/);
    for (const from of [root, other.root]) {
      const [session] = await scanJson(file, from);
      expect(session?.loops, from === root ? 'root' : 'other').toEqual([]);
    }
  });

  it('--project keeps a session by the project loopguard keeps it in, the folder it started in, or its ccusage name', async () => {
    const { root, src } = repository();
    const file = await guardedClaude(src, 'named', 2);
    const folderName = file.split('/').at(-2) as string;
    for (const name of [root, src, 'src', root.split('/').at(-1) as string, folderName])
      expect(
        (await scanJson(file, root, ['--project', name])).map((s) => s.sessionId),
        name,
      ).toEqual(['named']);
    expect(await scanJson(file, root, ['--project', 'elsewhere'])).toEqual([]);
  });

  it("docs51: a spend stop only loopguard's record holds is not said to be in the transcript", async () => {
    const { root } = repository();
    writeFileSync(join(root, 'loopguard.config.yaml'), 'spend:\n  session:\n    maxTokens: 1500\n');
    // the transcript without the hooks' answers: the spend stop is in loopguard's record only
    const file = join(root, 'transcript.jsonl');
    await guardedClaude(root, 'spent', 4, { file, answers: false });
    const [session] = await scanJson(file, root);
    expect(session?.record?.stop?.on).toBe('spend');
    expect(session?.spendStop).toBeUndefined();
    const terminal = await scan([file], root);
    expect(terminal).toContain(
      "loopguard's spend guard stopped 1 session at its budget (loopguard's record holds its stop",
    );
    expect(terminal).not.toContain('(the transcript holds its stop)');
    // doors71: the session named with the sentence status prints of it
    expect(terminal).toContain(`\n  claude spent: ${session?.record?.summary}\n`);
    expect(session?.record?.summary).toMatch(/^stopped on spend at call \d+ \(budget reached\)/);
  });

  it("says where loopguard's record and the transcript differ: a stop the transcript does not hold", async () => {
    const { root } = repository();
    // the transcript without the hooks' answers (the stop and the nudge loopguard recorded)
    const file = await guardedClaude(root, 'unsaid', 6, { answers: false });
    const [session] = await scanJson(file, root);
    expect(session?.record?.summary).toMatch(/^stopped by loopguard at call 4 \(same error\)/);
    expect(session?.recordDiffers).toBe(
      'loopguard stopped it at call 4 (same error) and the transcript holds no stop: a replay would nudge it at call 3 and not stop it',
    );
    const terminal = await scan([file], root);
    expect(terminal).toContain("Where loopguard's record (what status says) and the transcript differ:");
    expect(terminal).toContain(
      'claude unsaid: loopguard stopped it at call 4 (same error) and the transcript holds no stop: a replay would nudge it at call 3 and not stop it.',
    );
    expect(terminal).toContain('loopguard stopped 1 session in a loop');
    // the HTML page says it as the terminal does
    const page = join(root, 'report.html');
    await scan([file, '--html', page], root);
    expect(readFileSync(page, 'utf8')).toContain(
      '<li>claude unsaid: loopguard stopped it at call 4 (same error) and the transcript holds no stop: a replay would nudge it at call 3 and not stop it.</li>',
    );
  });

  it("a stop the record holds at the call the replay stops is loopguard's in the table", async () => {
    const { root } = repository();
    // a transcript without the hooks' answers that holds the call loopguard stopped as one that
    // ran (its answer unheeded): the replay stops at the same call
    const file = await guardedClaude(root, 'ran', 6, { answers: false, unheeded: true });
    const [session] = await scanJson(file, root);
    expect(session?.recordDiffers).toBe(
      "loopguard stopped it at call 4 (same error) and the transcript holds no stop: a replay would stop it at call 4 (same error); loopguard's hooks saw 3 of the 4 tool calls that ran",
    );
    const terminal = await scan([file], root);
    expect(terminal).toContain('| same error | call 4 (by loopguard) |');
    expect(terminal).toContain('loopguard stopped 1 session in a loop');
  });

  it('trust45: a `.git` made in the folder a session started in keeps it where the hooks recorded it', async () => {
    const { root, src } = repository();
    const file = await guardedClaude(src, 'git-made', 6);
    // the model ran `git init` in its folder: the hooks keep the session in the project holding it
    mkdirSync(join(src, '.git'));
    const [session] = await scanJson(file, root);
    expect(session?.project).toBe(root);
    expect(session?.startedIn).toBe(src);
    expect(session?.record?.summary).toMatch(/^stopped by loopguard at call 4 \(same error\)/);
  });

  it('trust46: and where a second session has since made the new repository its database', async () => {
    const { root, src } = repository();
    const file = await guardedClaude(src, 'git-made', 6);
    mkdirSync(join(src, '.git'));
    await guardedClaude(src, 'second', 2);
    const [session] = await scanJson(file, root);
    expect(session?.project).toBe(root);
    expect(session?.record?.summary).toMatch(/^stopped by loopguard at call 4 \(same error\)/);
  });

  it('a session loopguard keeps no record of is the folder it started in, as before', async () => {
    const { root, src } = repository();
    const file = await guardedClaude(src, 'unguarded', 2);
    const other = repository();
    const [session] = await scanJson(file, other.root);
    expect(session?.project).toBe(root); // the hooks' record is found whatever folder scan runs in
    const { rmSync } = await import('node:fs');
    rmSync(join(root, '.loopguard'), { recursive: true });
    const [unrecorded] = await scanJson(file, root);
    expect(unrecorded?.project).toBe(src);
    expect(unrecorded?.record).toBeUndefined();
    expect(unrecorded?.startedIn).toBeUndefined();
  });
});

// geminiscan63: Gemini CLI's hook input gives a subagent's calls its session's id (polish62), so
// the session's record holds them; `scan` compares it with the session's chats joined.
it("a Gemini CLI session's record is compared with its main chat and its subagents' chats joined (geminiscan63)", async () => {
  const { root } = repository();
  const chats = join(mkdtempSync(join(tmpdir(), 'loopguard-scan63-gemini-')), 'tmp', 'proj', 'chats');
  const session = 'a1cbc770-ba13-4353-9aa1-8a3ac27337e5';
  mkdirSync(join(chats, session), { recursive: true });
  writeFileSync(join(chats, '..', '.project_root'), root);
  // the chats Gemini CLI 0.61.0 wrote when its `generalist` subagent ran `cat missing.txt` five times
  const fixture = (name: string) =>
    readFileSync(new URL(`./fixtures/gemini/${name}`, import.meta.url), 'utf8');
  const main = fixture('gemini-0.61.0-subagent-main.jsonl');
  const subagent = fixture('gemini-0.61.0-subagent.jsonl');
  writeFileSync(join(chats, 'session-2026-11-30T22-28-a1cbc770.jsonl'), main);
  writeFileSync(join(chats, session, '510d2a4f-ad07-4dc7-86a2-5e1c08e23772.jsonl'), subagent);
  // the hook events Gemini CLI sent, in its order: the subagent's calls inside the main thread's
  // `invoke_agent`, each under the session's id; a call its chat holds as an error was refused
  const hook = (name: string, fields: Record<string, unknown>) =>
    answerHookEvent('gemini', JSON.stringify(geminiEvent(root, session, name, fields)), {
      env: {},
      cwd: root,
    });
  const calls = (chat: string) => {
    const replies = new Map<string, { toolCalls?: Record<string, unknown>[] }>();
    for (const text of chat.trim().split('\n')) {
      const record = JSON.parse(text);
      if (record.type === 'gemini') replies.set(record.id, record);
    }
    return [...replies.values()].flatMap((reply) => reply.toolCalls ?? []);
  };
  const run = async (call: Record<string, unknown>) => {
    const tool = { tool_name: call.name, tool_input: call.args };
    const before = await hook('BeforeTool', tool);
    expect(before !== '', String(call.id)).toBe(call.status === 'error');
    if (before !== '') return;
    const [result] = call.result as Array<{ functionResponse: { response: { output?: string } } }>;
    const output = String(result?.functionResponse.response.output).split('\n\n<hook_context>')[0];
    await hook('AfterTool', { ...tool, tool_response: { llmContent: output, returnDisplay: '' } });
  };
  const [invoke] = calls(main);
  const tool = { tool_name: invoke?.name, tool_input: invoke?.args };
  expect(await hook('BeforeTool', tool)).toBe('');
  for (const call of calls(subagent)) await run(call);
  await hook('AfterTool', { ...tool, tool_response: { llmContent: 'finished', returnDisplay: '' } });

  const [status] = await statusOf(root);
  expect(status?.summary).toBe(
    'stopped by loopguard at call 4 (same error), 5 tool calls ran, 1 more call refused after the stop, 1 nudge',
  );
  const report = JSON.parse(await scan([chats, '--json'], root)) as ScanReport;
  const sessions = report.sessions;
  const told = sessions.find((s) => s.sessionId === session);
  expect(told?.record?.summary).toBe(status?.summary);
  expect(told?.recordDiffers).toBeUndefined();
  // each chat is still listed as it reads: the main thread's one call, the subagent's own
  expect(told?.toolCalls).toBe(1);
  expect(sessions.find((s) => s.parentSessionId === session)?.toolCalls).toBe(4);
  // one session stopped, as status counts it: not its subagent's chat again
  expect(report.totals.stoppedByLoopguard).toBe(1);
  expect(await scan([chats], root)).toContain(
    'loopguard stopped 1 session in a loop: 1 tool call (1 refused)',
  );
});
