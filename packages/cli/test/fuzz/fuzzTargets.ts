import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LoopGuardError } from '@loopguard/core';
import { recordOf } from '@loopguard/core/internal';
import {
  ClaudeStreamJsonParser,
  CodexJsonParser,
  GeminiStreamJsonParser,
  JsonlStepParser,
  type Step,
  type StepLineParser,
  StepLoopDetector,
} from '@loopguard/core/steps';
import type { HookSessionRecord } from '@loopguard/sqlite';
import { claudeHook } from '../../src/hook/claudeHook.js';
import { parseEventFields } from '../../src/hook/eventText.js';
import { geminiHook } from '../../src/hook/geminiHook.js';
import { guardSession } from '../../src/hook/guardSession.js';
import type { HookDialect, HookEvent } from '../../src/hook/hookEvent.js';
import { noopLogger } from '../../src/hook/noopLogger.js';
import { readHookEvent, readHookEventFields } from '../../src/hook/runHook.js';
import { eventFieldsOfToolArguments } from '../../src/mcp/hookTool.js';
import { detectFormat } from '../../src/scan/detectFormat.js';
import { SessionScan } from '../../src/scan/SessionScan.js';
import type { TranscriptParser } from '../../src/scan/TranscriptParser.js';
import { toolArguments } from './mcpFuzz.js';
import { mutate, random } from './mutate.js';

/**
 * Every parser loopguard has (the MCP server's messages: `mcpFuzz.ts`), driven one line at a time over sessions of fuzzed lines, with the
 * steps fed to a step detector as each door does. What one input gives:
 * - `steps`: it was read (steps, maybe none);
 * - `skip`: a documented skip (scan leaves a line that is not JSON, or not an object, out);
 * - `typed`: a `LoopGuardError` (the hook's `HookInputError` is one) whose message names what was wrong;
 * - `untyped`: anything else: a defect.
 */
export type Outcome = 'steps' | 'skip' | 'typed' | 'untyped';

/** One parser with its seeds: `push` reads one line of the current session, `end` ends it. */
export interface FuzzTarget {
  name: string;
  seeds: string[];
  /** A fresh session. */
  start(): FuzzSession;
}

interface FuzzSession {
  push(line: string): void;
  end(): void;
}

function lines(...files: string[]): string[] {
  return files.flatMap((file) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== ''),
  );
}

function fixtures(dir: string, match: RegExp): string[] {
  return readdirSync(dir)
    .filter((name) => match.test(name))
    .map((name) => join(dir, name));
}

/** A detector that every step goes through, as each door feeds it. */
function observer(): (steps: Step[]) => void {
  const detector = new StepLoopDetector({ logger: noopLogger });
  return (steps) => {
    for (const step of steps) detector.observe(step);
  };
}

function lineParserTarget(name: string, seeds: string[], parser: () => StepLineParser): FuzzTarget {
  return {
    name,
    seeds,
    start() {
      const lines = parser();
      const observe = observer();
      return { push: (line) => observe(lines.push(line)), end: () => undefined };
    },
  };
}

/** Scan's reading of one line, as `scanFile` does it: not JSON or not an object is a skip. */
class Skip extends Error {}

function scanTarget(name: string, seeds: string[]): FuzzTarget {
  return {
    name,
    seeds,
    start() {
      let parser: TranscriptParser | undefined;
      let scan: SessionScan | undefined;
      return {
        push(line) {
          let value: unknown;
          try {
            value = JSON.parse(line);
          } catch {
            throw new Skip('not JSON');
          }
          const record = recordOf(value);
          if (record === undefined) throw new Skip('not an object');
          parser ??= detectFormat(record, '/home/u/.gemini/tmp/project/chats/session-1.jsonl');
          if (parser === undefined) throw new Skip('unknown format');
          scan ??= new SessionScan(new StepLoopDetector({ logger: noopLogger }));
          scan.add(parser.push(record, line));
        },
        end() {
          if (parser === undefined || scan === undefined) return;
          scan.add(parser.end());
          scan.finish();
        },
      };
    },
  };
}

/** A hook session's state, fed each event as both doors feed it (`guardSession`). */
function hookSession(agent: HookDialect['agent']): (event: HookEvent) => void {
  let session: HookSessionRecord | null = null;
  return (event) => {
    const update = guardSession(event, session, {
      agent,
      detector: { logger: noopLogger },
      record: () => undefined,
      now: () => 0,
    });
    if (update.next !== undefined) session = { ...update.next, createdAt: 0, updatedAt: 0 };
  };
}

function hookTarget(name: string, seeds: string[], dialect: HookDialect): FuzzTarget {
  return {
    name,
    seeds,
    start() {
      const guard = hookSession(dialect.agent);
      return { push: (text) => guard(readHookEvent(dialect, text, {}, '/fuzz')), end: () => undefined };
    },
  };
}

/**
 * The MCP server's reading of a `hook` call (`loopguard mcp`): each line an event, written into the
 * tool's arguments as Claude Code writes them (every field a string); a line that is no JSON is
 * the plain-text result of the first seed's call. (The server's messages: `mcpFuzz.ts`.)
 */
function mcpArgumentsTarget(name: string, seeds: string[]): FuzzTarget {
  return {
    name,
    seeds,
    start() {
      const guard = hookSession('claude');
      return {
        push(text) {
          let value: unknown;
          try {
            value = JSON.parse(text);
          } catch {
            value = { ...JSON.parse(seeds[0] as string), tool_response: text };
          }
          const record = recordOf(value);
          let args: unknown = value;
          try {
            if (record !== undefined) args = toolArguments(record);
          } catch {
            // nested past JSON.stringify's stack: Claude Code cannot write such a call either
            throw new Skip('an event Claude Code cannot write');
          }
          guard(
            readHookEventFields(claudeHook, parseEventFields(eventFieldsOfToolArguments(args)), {}, '/fuzz'),
          );
        },
        end: () => undefined,
      };
    },
  };
}

/**
 * Every target, seeded from the recorded transcripts, streams and hook events under the tests' fixtures.
 * @param dir - this folder (`packages/cli/test/fuzz`). @default its place
 */
export function fuzzTargets(dir = fileURLToPath(new URL('.', import.meta.url))): FuzzTarget[] {
  const cliFixtures = join(dir, '..', 'fixtures');
  const coreFixtures = join(dir, '..', '..', '..', 'core', 'test', 'steps', 'fixtures');
  const steps = fixtures(coreFixtures, /__.*\.jsonl$/);
  const geminiStreams = [
    join(coreFixtures, 'gemini-cli-stream-0.61.0.jsonl'),
    ...fixtures(join(cliFixtures, 'gemini'), /\.jsonl$/),
  ];
  return [
    lineParserTarget(
      'core ClaudeStreamJsonParser',
      lines(join(coreFixtures, 'claude-stream.jsonl')),
      () => new ClaudeStreamJsonParser(),
    ),
    lineParserTarget(
      'core CodexJsonParser',
      lines(join(coreFixtures, 'codex-exec-0.169.0.jsonl')),
      () => new CodexJsonParser(),
    ),
    lineParserTarget(
      'core GeminiStreamJsonParser',
      lines(...geminiStreams),
      () => new GeminiStreamJsonParser(),
    ),
    lineParserTarget('core JsonlStepParser', lines(...steps), () => new JsonlStepParser()),
    scanTarget('scan Claude Code transcript', lines(...fixtures(join(cliFixtures, 'scan'), /^claude/))),
    scanTarget('scan Codex rollout', lines(...fixtures(join(cliFixtures, 'scan'), /^codex/))),
    scanTarget('scan Gemini CLI chat', lines(...fixtures(join(cliFixtures, 'scan'), /^gemini/))),
    scanTarget(
      'scan live streams',
      lines(
        join(coreFixtures, 'claude-stream.jsonl'),
        join(coreFixtures, 'codex-exec-0.169.0.jsonl'),
        ...geminiStreams,
      ),
    ),
    hookTarget('hook claude', lines(join(cliFixtures, 'hooks', 'claude-code-2.1.330.jsonl')), claudeHook),
    hookTarget('hook gemini', lines(join(cliFixtures, 'hooks', 'gemini-cli-0.61.0.jsonl')), geminiHook),
    mcpArgumentsTarget('mcp hook arguments', lines(join(cliFixtures, 'hooks', 'claude-code-2.1.330.jsonl'))),
  ];
}

/** What a fuzz run found. */
export interface FuzzCounts {
  inputs: number;
  outcomes: Record<Outcome, number>;
  /** The slowest input: its time, its target, and its first characters. */
  slowest: { ms: number; target: string; input: string };
  /** The first untyped errors, with their target and input (at most 20). */
  untyped: Array<{ target: string; error: string; input: string }>;
  /** Typed errors whose message is empty (they name nothing). */
  unnamed: number;
}

/** Lines per fuzzed session before it ends and a new one starts. */
const SESSION_LINES = 40;

function classify(error: unknown): Outcome {
  if (error instanceof Skip) return 'skip';
  return error instanceof LoopGuardError ? 'typed' : 'untyped';
}

/**
 * Runs `inputs` fuzzed lines through the targets in turn (sessions of {@link SESSION_LINES} lines,
 * each opening with the seeds' first line, then each line a mutation of a seed three times in four,
 * else a seed as recorded), from `seed`.
 */
export function runFuzz(inputs: number, seed: number, targets = fuzzTargets()): FuzzCounts {
  const rnd = random(seed);
  const counts: FuzzCounts = {
    inputs: 0,
    outcomes: { steps: 0, skip: 0, typed: 0, untyped: 0 },
    slowest: { ms: 0, target: '', input: '' },
    untyped: [],
    unnamed: 0,
  };
  const note = (target: FuzzTarget, input: string, run: () => void) => {
    const start = performance.now();
    let outcome: Outcome = 'steps';
    try {
      run();
    } catch (error) {
      outcome = classify(error);
      if (outcome === 'typed' && (error as Error).message.trim() === '') counts.unnamed++;
      if (outcome === 'untyped' && counts.untyped.length < 20) {
        counts.untyped.push({
          target: target.name,
          error: String(error).slice(0, 200),
          input: input.slice(0, 300),
        });
      }
    }
    const ms = performance.now() - start;
    if (ms > counts.slowest.ms) counts.slowest = { ms, target: target.name, input: input.slice(0, 120) };
    return outcome;
  };
  while (counts.inputs < inputs) {
    for (const target of targets) {
      const session = target.start();
      for (let n = 0; n < SESSION_LINES && counts.inputs < inputs; n++) {
        // a session opens as its recorded one does (its header), then lines from anywhere in the seeds
        const seedLine = target.seeds[n === 0 ? 0 : Math.floor(rnd() * target.seeds.length)] as string;
        const input = n > 0 && rnd() < 0.75 ? mutate(seedLine, target.seeds, rnd) : seedLine;
        counts.inputs++;
        counts.outcomes[note(target, input, () => session.push(input))]++;
      }
      if (note(target, '(end of session)', () => session.end()) === 'untyped') counts.outcomes.untyped++;
    }
  }
  return counts;
}
