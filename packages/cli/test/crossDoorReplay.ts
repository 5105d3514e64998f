import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { messageWords } from '@loopguard/core/internal';
import {
  ClaudeStreamJsonParser,
  CodexJsonParser,
  GeminiStreamJsonParser,
  type StepLineParser,
} from '@loopguard/core/steps';
import { expect } from 'vitest';
import { runCli } from '../src/main.js';
import { McpHookServer } from '../src/mcp/McpHookServer.js';
import { StepStreamWatcher } from '../src/run/StepStreamWatcher.js';
import type { ScanReport } from '../src/scan/scanReport.js';
import { EXIT_CODES } from '../src/terminal/exitCodes.js';
import { bufferedIo } from './helpers.js';
import { hookCall, mcpHookCall, tempProject } from './hookHelpers.js';

/** One verdict of a door: at which tool call (1-based) it came, its loop kind and its message's first line. */
export interface DoorVerdict {
  call: number;
  kind: string;
  message: string;
}

/** What a door did with a session: its first nudge and its stop (`null`: none). */
export interface DoorVerdicts {
  nudge: DoorVerdict | null;
  stop: DoorVerdict | null;
}

/** The agents' stream formats, as `run --agent-stream` names them. */
export type StreamAgent = 'claude' | 'codex' | 'gemini';

const firstLine = (text: string) => text.split('\n')[0] ?? '';
/** The loop kind a message names: `Loop detected (near_duplicate): …`, `Stopped (same_error): …`. */
const kindOf = (message: string) => /\((\w+)\)/.exec(message)?.[1] ?? '';
/** Each door's message as a person reads it quoted (`scan --json`'s: its kind in words, doors71). */
const verdict = (call: number, message: string, kind = kindOf(message)): DoorVerdict => ({
  call,
  kind,
  message: firstLine(messageWords(message)),
});

const AFTER_TOOL = new Set(['PostToolUse', 'PostToolUseFailure', 'AfterTool']);

/** The verdicts of hook replies, each answering one recorded event, until the first stop. */
async function replayHookEvents(
  events: string[],
  answer: (line: string) => Promise<string>,
): Promise<DoorVerdicts> {
  const out: DoorVerdicts = { nudge: null, stop: null };
  let calls = 0;
  for (const line of events) {
    const name = (JSON.parse(line) as { hook_event_name?: string }).hook_event_name ?? '';
    const call = AFTER_TOOL.has(name) ? ++calls : calls + 1;
    const reply = await answer(line);
    if (reply.trim() === '') continue;
    const json = JSON.parse(reply) as {
      continue?: boolean;
      reason?: string;
      hookSpecificOutput?: {
        permissionDecision?: string;
        permissionDecisionReason?: string;
        additionalContext?: string;
      };
    };
    const specific = json.hookSpecificOutput;
    const message = specific?.permissionDecisionReason ?? json.reason ?? specific?.additionalContext ?? '';
    // Codex ends no turn: its stop is a denied call, or a stop's message after the call
    const stop =
      json.continue === false || specific?.permissionDecision === 'deny' || /^Stopped \(/.test(message);
    if (stop) {
      out.stop = verdict(call, message);
      break;
    }
    out.nudge ??= verdict(call, message);
  }
  return out;
}

/**
 * The command hook door: each recorded event through `loopguard hook <agent>` (a process per event,
 * as the CLI runs it) in a fresh project, until the first stop.
 */
export async function hookDoor(
  agent: 'claude' | 'gemini' | 'codex',
  events: string[],
): Promise<DoorVerdicts> {
  const project = tempProject();
  return replayHookEvents(events, async (line) => {
    // Codex names its project by the event's cwd only
    const event = agent === 'codex' ? JSON.stringify({ ...JSON.parse(line), cwd: project }) : line;
    const reply = await hookCall(project, agent, event, {
      CLAUDE_PROJECT_DIR: project,
      GEMINI_PROJECT_DIR: project,
    });
    expect(reply.code, reply.stderr).toBe(0);
    return reply.stdout;
  });
}

/**
 * The fast path's door (what `init claude` installs): each recorded Claude Code event as the
 * `mcp_tool` hook hands it to loopguard's MCP server, every field a string and objects as their JSON.
 */
export async function mcpDoor(events: string[]): Promise<DoorVerdicts> {
  const lines: string[] = [];
  const server = new McpHookServer({ write: (line) => lines.push(line), projectDir: tempProject() });
  let id = 0;
  try {
    return await replayHookEvents(events, async (line) => {
      const event = JSON.parse(line) as Record<string, unknown>;
      const before = lines.length;
      server.receive(mcpHookCall(event, ++id));
      await server.idle();
      const answer = JSON.parse(lines[before] ?? '{}') as { result?: { content?: Array<{ text?: string }> } };
      return answer.result?.content?.[0]?.text ?? '';
    });
  } finally {
    server.close();
  }
}

const LINE_PARSERS: Record<StreamAgent, () => StepLineParser> = {
  claude: () => new ClaudeStreamJsonParser(),
  codex: () => new CodexJsonParser(),
  gemini: () => new GeminiStreamJsonParser(),
};

/**
 * The live door: the recorded output, line by line, into the watcher `run --agent-stream <agent>`
 * feeds the agent's stdout to (the tool calls are counted with the same format's parser).
 */
export function streamDoor(agent: StreamAgent, lines: string[]): DoorVerdicts {
  const watcher = new StepStreamWatcher(agent, 'cross-door');
  const counter = LINE_PARSERS[agent]();
  const out: DoorVerdicts = { nudge: null, stop: null };
  let calls = 0;
  const look = () => {
    const nudge = watcher.nudges[0];
    if (out.nudge === null && nudge !== undefined) out.nudge = verdict(calls, nudge);
    const stop = watcher.stopVerdict;
    if (stop !== null) out.stop = verdict(calls, stop.message ?? '', stop.loopType ?? '');
  };
  for (const line of lines) {
    calls += counter.push(line).filter((step) => step.type === 'action').length;
    watcher.push(`${line}\n`);
    look();
    if (out.stop !== null) return out;
  }
  watcher.end();
  look();
  expect(watcher.malformedLines, watcher.firstProblem ?? '').toBe(0);
  return out;
}

/** The scan door: `loopguard scan --json <transcript>`. */
export async function scanDoor(file: string): Promise<DoorVerdicts> {
  const cwd = mkdtempSync(join(tmpdir(), 'loopguard-xdoor-scan-'));
  const io = bufferedIo({ cwd, env: { HOME: cwd } });
  expect(await runCli(['scan', '--json', file], io), io.err()).toBe(EXIT_CODES.ok);
  const report = JSON.parse(io.out()) as ScanReport;
  expect(report.sessions).toHaveLength(1);
  // the tool calls as scan reports them (nudgeCall, stopCall), to be the hooks' own
  const loops = report.sessions[0]?.loops ?? [];
  const first = loops[0];
  const stopped = loops.find((loop) => loop.stopCall !== null);
  return {
    nudge: first === undefined ? null : { call: first.nudgeCall, kind: first.kind, message: '' },
    stop:
      stopped?.stopCall == null
        ? null
        : verdict(stopped.stopCall, stopped.message, stopped.stopKind ?? stopped.kind),
  };
}
