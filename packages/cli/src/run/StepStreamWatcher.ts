import type { SpendVerdict } from '@loopguard/core/spend';
import {
  ClaudeStreamJsonParser,
  CodexJsonParser,
  GeminiStreamJsonParser,
  JsonlStepParser,
  type Step,
  type StepLineParser,
  StepLoopDetector,
  type StepVerdict,
} from '@loopguard/core/steps';
import type { AGENT_STREAM_FORMATS } from './runOptionTable.js';
import type { RunSpend } from './runSpend.js';
import { streamSessionId } from './streamSessionId.js';

/** The agent output formats `--agent-stream` reads as steps. */
export type AgentStreamFormat = (typeof AGENT_STREAM_FORMATS)[number];

/** The line parser of each `--agent-stream` format. */
const PARSERS: Record<AgentStreamFormat, () => StepLineParser> = {
  claude: () => new ClaudeStreamJsonParser(),
  codex: () => new CodexJsonParser(),
  gemini: () => new GeminiStreamJsonParser(),
  jsonl: () => new JsonlStepParser(),
};

/**
 * Reads an agent's stdout live as steps (Claude Code `stream-json`, Codex `exec --json`, Gemini CLI
 * `stream-json`, or generic JSON lines) and
 * feeds them to a fresh {@link StepLoopDetector} for the iteration: nudges are kept for the next
 * prompt, and a stop aborts `stopSignal` so the runner kills the agent's process group mid-run.
 * Lines that are not steps (plain text, other JSON) are skipped.
 * @example
 * const watcher = new StepStreamWatcher('claude', runId);
 * runAgent(cmd, { onStdout: (c) => watcher.push(c), stop: watcher.stopSignal, … });
 */
export class StepStreamWatcher {
  /** Aborted when the detector says stop. */
  readonly stopSignal: AbortSignal;
  /** The verdict that stopped the iteration, or `null`. */
  stopVerdict: StepVerdict | null = null;
  /** The detectors' nudges and stop, oldest first (recorded as the run's `loop_nudge` and `loop_stop` entries). */
  readonly loopVerdicts: StepVerdict[] = [];
  /** The agent's session the stream names (`claude:<session_id>`, `codex:<thread_id>`), as `scan` keys it; `null` until named. */
  agentSession: string | null = null;
  /** The nudge messages of this iteration, oldest first. */
  readonly nudges: string[] = [];
  /** Lines that looked like steps but could not be judged (counted in the iteration's metrics). */
  malformedLines = 0;
  /** Why the first of them could not be judged. */
  firstProblem: string | null = null;
  /** The spend guard's warnings and stop in this iteration, oldest first (a stop also aborts `stopSignal`). */
  readonly spendVerdicts: SpendVerdict[] = [];
  private readonly controller = new AbortController();
  private readonly parser: StepLineParser;
  /** The agent's own run's detector, then one for each subagent (`parser.subagent`), by its id. */
  private readonly detectors = new Map<string | null, StepLoopDetector>();
  private pending = '';

  /**
   * @param spend - the run's spend guard and the iteration's task, when a budget is set: the usage
   *   records of the same lines are counted, a warning joins the nudges, a stop aborts.
   */
  constructor(
    private readonly format: AgentStreamFormat,
    private readonly runId: string,
    private readonly spend?: { guard: RunSpend; task: string | null },
  ) {
    this.parser = PARSERS[format]();
    this.detectors.set(null, new StepLoopDetector({ runId }));
    this.stopSignal = this.controller.signal;
  }

  /** Feeds a chunk of stdout; complete lines are parsed and judged. */
  push(chunk: string): void {
    this.pending += chunk;
    let newline = this.pending.indexOf('\n');
    while (newline >= 0) {
      const line = this.pending.slice(0, newline);
      this.pending = this.pending.slice(newline + 1);
      this.line(line);
      newline = this.pending.indexOf('\n');
    }
  }

  /**
   * The output ended: its last line without a newline, then what the parser still holds (the
   * agent's last message, which the hooks see at the turn's end) are judged.
   */
  end(): void {
    const last = this.pending;
    this.pending = '';
    if (last !== '') this.line(last);
    if (this.stopVerdict === null && this.parser.end !== undefined) {
      const parser = this.parser as Required<StepLineParser>;
      this.guarded(() => this.judge(parser.end()));
    }
  }

  private line(line: string): void {
    if (this.stopVerdict !== null || this.controller.signal.aborted || !line.trimStart().startsWith('{'))
      return;
    if (this.agentSession === null && this.format !== 'jsonl') this.noteSession(line);
    const spent = this.spend?.guard.line(line, this.spend.task);
    if (spent !== undefined) {
      this.spendVerdicts.push(spent);
      if (spent.action === 'warn') this.nudges.push(spent.message);
      else this.controller.abort();
    }
    this.guarded(() => this.judge(this.parser.push(line)));
  }

  /** The thresholds the detectors judge with (the defaults: `--agent-stream` takes no options). */
  get thresholds(): Readonly<Record<string, number>> {
    return (this.detectors.get(null) as StepLoopDetector).options;
  }

  /** Notes the session a line names (its first event does; the line is parsed again only until then). */
  private noteSession(line: string): void {
    if (!line.includes('"session_id"') && !line.includes('"thread_id"')) return;
    try {
      const event: unknown = JSON.parse(line);
      if (event === null || typeof event !== 'object') return;
      const id = streamSessionId(event as Record<string, unknown>);
      if (id !== undefined) this.agentSession = `${this.format}:${id}`;
    } catch {
      // not JSON: the parser counts it
    }
  }

  /**
   * A line the parser or the detector cannot take (not JSON, nested too deep, a value it rejects)
   * is counted and skipped: the run goes on under the breaker; other JSON parses to no step.
   */
  private guarded(work: () => void): void {
    try {
      work();
    } catch (error) {
      this.malformedLines += 1;
      this.firstProblem ??= (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
    }
  }

  /** A subagent's run is judged apart from the session's: a loop of either stops the iteration. */
  private detectorOf(subagent: string | null): StepLoopDetector {
    let detector = this.detectors.get(subagent);
    if (detector === undefined) {
      detector = new StepLoopDetector({ runId: `${this.runId}:${subagent}` });
      this.detectors.set(subagent, detector);
    }
    return detector;
  }

  private judge(steps: Step[]): void {
    if (steps.length === 0) return;
    const detector = this.detectorOf(this.parser.subagent ?? null);
    for (const step of steps) {
      const verdict = detector.observe(step);
      if (verdict.action === 'nudge' || verdict.action === 'stop') this.loopVerdicts.push(verdict);
      if (verdict.action === 'nudge' && verdict.message !== null) this.nudges.push(verdict.message);
      if (verdict.action === 'stop') {
        this.stopVerdict = verdict;
        this.controller.abort();
        return;
      }
    }
  }
}
