import { type Clock, systemClock } from '@loopguard/core';
import type { BreakerState } from '@loopguard/core/breaker';
import type { CliIo } from '../terminal/cliIo.js';

const COLOURS: Record<BreakerState, string> = { CLOSED: '\x1b[32m', HALF_OPEN: '\x1b[33m', OPEN: '\x1b[31m' };

/** Every event `loopguard run --json` prints (its `event` field), as docs/cli.md lists them (a test holds the two equal). */
export const RUN_EVENTS = [
  'run_started',
  'iteration_started',
  'iteration_finished',
  'breaker_state_changed',
  'stagnation_detected',
  'webhook_posted',
  'escalated',
  'escalation_exhausted',
  'step_loop_stopped',
  'spend_warning',
  'spend_stop',
  'infrastructure_wait',
  'cooldown_wait',
  'call_limit_wait',
  'warning',
  'run_finished',
] as const;

/** One of the {@link RUN_EVENTS}. */
export type RunEvent = (typeof RUN_EVENTS)[number];

/**
 * What `loopguard run` shows: one JSON object per line on stdout with `--json` (for pipelines),
 * else plain lines prefixed `[loopguard]` on stderr (a live, redrawn status line on a terminal),
 * colours off with `NO_COLOR` or without a terminal. The agent's own output passes through on
 * stdout (on stderr with `--json`, so stdout stays JSON).
 * @example display.event('iteration_finished', { iteration: 2 }, 'iteration 2 done');
 */
export class RunDisplay {
  private liveShown = false;

  constructor(
    private readonly io: CliIo,
    private readonly json: boolean,
    private readonly clock: Clock = systemClock,
  ) {}

  /** Whether colours are used. */
  get colour(): boolean {
    return this.io.isTTY && !this.json && (this.io.env.NO_COLOR ?? '') === '';
  }

  /** Reports an event: a JSON line (`{"event": type, …data}`) or the human `line`. */
  event(type: RunEvent, data: Record<string, unknown>, line: string | null): void {
    if (this.json) {
      this.io.stdout(
        `${JSON.stringify({ event: type, at: new Date(this.clock.now()).toISOString(), ...data })}\n`,
      );
      return;
    }
    if (line === null) return;
    this.clearLive();
    this.io.stderr(`[loopguard] ${line}\n`);
  }

  /** Shows the live status line (redrawn in place on a terminal; nothing otherwise). */
  live(line: string): void {
    if (this.json || !this.io.isTTY) return;
    this.io.stderr(`\r\x1b[2K[loopguard] ${line}`);
    this.liveShown = true;
  }

  /** Passes the agent's output through. */
  agentStdout(chunk: string): void {
    this.clearLive();
    if (this.json) this.io.stderr(chunk);
    else this.io.stdout(chunk);
  }

  /** Passes the agent's stderr through. */
  agentStderr(chunk: string): void {
    this.clearLive();
    this.io.stderr(chunk);
  }

  /** A breaker state, coloured when colours are on. */
  state(state: BreakerState): string {
    return this.colour ? `${COLOURS[state]}${state}\x1b[0m` : state;
  }

  private clearLive(): void {
    if (!this.liveShown) return;
    this.io.stderr('\r\x1b[2K');
    this.liveShown = false;
  }
}
