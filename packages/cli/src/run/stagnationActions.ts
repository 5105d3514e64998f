import type { StagnationBreaker } from '@loopguard/core/breaker';
import { runReasonWords } from '@loopguard/core/internal';
import type { CliIo } from '../terminal/cliIo.js';
import { EXIT_CODES } from '../terminal/exitCodes.js';
import { notifyDesktop, postWebhook, shownWebhook } from './notify.js';
import type { RunDisplay } from './RunDisplay.js';
import type { RunOptions } from './runOptions.js';
import { abortedOutcome, type Outcome, type SessionState } from './sessionState.js';

/** What {@link StagnationActions} acts with. */
export interface StagnationActionsInput {
  /** The CLI's I/O: the pause menu asks through `io.ask` (present only on a terminal). */
  io: CliIo;
  /** Where events go. */
  display: RunDisplay;
  /** The run's options (`onStagnation`, `webhook`, `modelProgression`, `plan`, `json`). */
  options: RunOptions;
  /** The run's breaker (reset by continue, skip, retry and escalate). */
  breaker: StagnationBreaker;
  /** The shared session state (model index, task, last error, skipped tasks). */
  state: SessionState;
  /** The run id. */
  runId: string;
  /** The run's directory, shown by `[h]`. */
  runDir: string;
}

const MENU =
  'Options:\n  [c] Continue (reset counter)\n  [s] Skip task (mark as blocked)\n  [a] Abort run\n  [r] Retry with different model\n  [h] Get help (show context)\n\n';

/**
 * What `loopguard run` does when the breaker opens (`--on-stagnation`): alert (webhook, desktop
 * notification), abort, escalate to the next model, or pause — the seed's menu when a person is at
 * a terminal, else exit 3 with the state saved.
 */
export class StagnationActions {
  constructor(private readonly input: StagnationActionsInput) {}

  /** Acts on an open breaker; `null` means the run goes on. */
  async act(reason: string, iteration: number): Promise<Outcome | null> {
    const { options, display, state, runId } = this.input;
    const action = options.onStagnation;
    const alert = { run: runId, iteration, reason, lastError: state.lastError, task: state.lastTask, action };
    display.event('stagnation_detected', alert, `[STAGNATION DETECTED] ${runReasonWords(reason)}`);
    if (options.webhook !== undefined) {
      const problem = await postWebhook(options.webhook, alert);
      const shown = shownWebhook(options.webhook);
      display.event(
        'webhook_posted',
        { run: runId, url: shown, delivered: problem === null, problem },
        // the path left out (its key), and said so, so that nobody reads a wrong URL
        `${problem === null ? `webhook posted to ${shown}` : `webhook to ${shown} failed: ${problem}`} (its path not shown: a webhook's URL may hold its key)`,
      );
    }
    if (action === 'alert') {
      // not the reason: it quotes the agent's error, and a notifier's arguments are every local
      // user's to read (`ps`) while it runs (trust46); the terminal says why
      await notifyDesktop(
        'loopguard: stagnation detected',
        `run ${runId} stalled at iteration ${iteration}: the terminal says why`,
        this.input.io.env,
      );
      return null;
    }
    if (action === 'abort') return abortedOutcome(state.lastTask, reason);
    if (action === 'escalate') {
      if (this.nextModel(reason, 'escalated to model')) return null;
      display.event('escalation_exhausted', { run: runId }, 'the last model also stalled: pausing');
    }
    return this.pauseForPerson(reason);
  }

  /** Moves to the next model of `--model-progression`; `false` when there is none. */
  private nextModel(reason: string, why: string): boolean {
    const { options, state, breaker, display, runId } = this.input;
    const next = options.modelProgression[state.modelIndex + 1];
    if (next === undefined) return false;
    state.modelIndex += 1;
    state.failureContext = reason;
    breaker.reset(`${why} ${next}`);
    if (why.startsWith('escalated'))
      display.event('escalated', { run: runId, model: next }, `escalating to model ${next}`);
    return true;
  }

  /** The seed's menu when a person can answer; otherwise the run saves its state and exits 3. */
  private async pauseForPerson(reason: string): Promise<Outcome | null> {
    const { io, options, state, breaker } = this.input;
    if (!io.isTTY || io.ask === undefined || options.json) {
      return { status: 'paused', exitCode: EXIT_CODES.paused, reason };
    }
    for (;;) {
      io.stderr(
        `\n[STAGNATION DETECTED] ${runReasonWords(reason)}\nTask: ${state.lastTask ?? '(none)'}\nLast error: ${state.lastError ?? '(none)'}\n\n${MENU}`,
      );
      const choice = (await io.ask('Choice: ')).trim().toLowerCase();
      if (choice === 'c') {
        breaker.reset('continued by a person');
        return null;
      }
      if (choice === 'a') return abortedOutcome(state.lastTask, reason);
      if (choice === 's') {
        if (state.lastTask === null || options.plan === undefined)
          return abortedOutcome(state.lastTask, reason);
        state.skipped.add(state.lastTask);
        breaker.reset(`task ${state.lastTask} skipped (blocked)`);
        return null;
      }
      if (choice === 'r') {
        if (this.nextModel(reason, 'retrying with model')) return null;
        io.stderr('No other model in --model-progression.\n');
        continue;
      }
      if (choice === 'h') {
        io.stderr(
          `Run ${this.input.runId}, artifacts in ${this.input.runDir}/iterations; state in .loopguard/state.db.\nLater: loopguard resume ${this.input.runId}, loopguard reset ${this.input.runId}.\n`,
        );
      }
    }
  }
}
