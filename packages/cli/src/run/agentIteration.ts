import type { SpendVerdict } from '@loopguard/core/spend';
import type { StepVerdict } from '@loopguard/core/steps';
import { type AgentResult, runAgent } from './agentProcess.js';
import type { GitWorkspace } from './GitWorkspace.js';
import type { RunDisplay } from './RunDisplay.js';
import type { IterationLoops } from './runLoopEntries.js';
import type { RunOptions } from './runOptions.js';
import type { RunSpend } from './runSpend.js';
import { StepStreamWatcher } from './StepStreamWatcher.js';

/** What one run of the agent produced. */
export interface AgentIteration {
  /** How the agent ran. */
  result: AgentResult;
  /** The working tree after the iteration (`null` outside git). */
  tree: string | null;
  /** The files changed and the patch against the tree before; `null` outside git. */
  changes: { files: string[]; patch: string } | null;
  /** The step-level detector's stop, when it stopped the iteration (`--agent-stream`). */
  stopVerdict: StepVerdict | null;
  /** The step-level detector's nudges (and its stop message) for the next prompt. */
  nudges: string[];
  /** Output lines that looked like steps but could not be judged, and why the first could not. */
  malformed: { lines: number; first: string | null };
  /** The spend guard's warnings and stop (a stop ended the iteration), oldest first. */
  spend: SpendVerdict[];
  /** The step-level detector's nudges and stop, to record (`--agent-stream`; none without). */
  loops: IterationLoops;
}

/** What {@link runAgentIteration} needs. */
export interface AgentIterationInput {
  /** The run id. */
  runId: string;
  /** The command with `{model}` replaced. */
  command: readonly string[];
  /** The working directory. */
  cwd: string;
  /** The prompt for this iteration. */
  prompt: string;
  /** The run's options (`iterationTimeout`, `agentStream`). */
  options: RunOptions;
  /** The user's interrupt. */
  signal: AbortSignal;
  /** Where the agent's output passes through. */
  display: RunDisplay;
  /** The git workspace (`null` outside git) and its tree before the iteration. */
  workspace: GitWorkspace | null;
  /** The tree before the iteration. */
  treeBefore: string | null;
  /** Tags the agent's environment (its whole process tree is ended). */
  token?: string;
  /** Called with the agent's pid when it starts. */
  onStart?: (pid: number) => void;
  /** The run's spend guard (a budget is set) and the iteration's task. */
  spend?: { guard: RunSpend; task: string | null };
}

/**
 * Runs the agent once: its output streams through the display and, with `--agent-stream`, through
 * a fresh step-level watcher that may stop it mid-run; then the working tree is snapshot and
 * compared with the one before.
 */
export async function runAgentIteration(input: AgentIterationInput): Promise<AgentIteration> {
  const { options, display, workspace, treeBefore } = input;
  const watcher =
    options.agentStream === undefined
      ? null
      : new StepStreamWatcher(options.agentStream, input.runId, input.spend);
  const result = await runAgent(input.command, {
    cwd: input.cwd,
    input: input.prompt,
    timeoutMs: options.iterationTimeout,
    signal: input.signal,
    ...(input.token === undefined ? {} : { token: input.token }),
    ...(input.onStart === undefined ? {} : { onStart: input.onStart }),
    ...(watcher === null ? {} : { stop: watcher.stopSignal }),
    onStdout: (chunk) => {
      watcher?.push(chunk);
      display.agentStdout(chunk);
    },
    onStderr: (chunk) => display.agentStderr(chunk),
  });
  watcher?.end();
  if (result.interrupted)
    return {
      result,
      tree: treeBefore,
      changes: null,
      stopVerdict: null,
      nudges: [],
      malformed: { lines: 0, first: null },
      spend: watcher?.spendVerdicts ?? [],
      loops: loopsOf(watcher),
    };
  const tree = workspace === null ? null : await workspace.snapshot();
  const changes =
    workspace === null || treeBefore === null || tree === null
      ? null
      : await workspace.changes(treeBefore, tree);
  const stopVerdict = watcher?.stopVerdict ?? null;
  const nudges =
    watcher === null ? [] : [...watcher.nudges, ...(stopVerdict?.message ? [stopVerdict.message] : [])];
  const malformed = { lines: watcher?.malformedLines ?? 0, first: watcher?.firstProblem ?? null };
  const spend = watcher?.spendVerdicts ?? [];
  return { result, tree, changes, stopVerdict, nudges, malformed, spend, loops: loopsOf(watcher) };
}

function loopsOf(watcher: StepStreamWatcher | null): IterationLoops {
  return watcher === null
    ? { verdicts: [], thresholds: {}, agentSession: null }
    : { verdicts: watcher.loopVerdicts, thresholds: watcher.thresholds, agentSession: watcher.agentSession };
}
