import { messageWords } from '@loopguard/core/internal';
import {
  type ActionStep,
  type ObservationStep,
  type StepEvidence,
  StepLoopDetector,
  type StepLoopDetectorOptions,
  type StepVerdict,
} from '@loopguard/core/steps';
import { quietDetectorOptions } from '../hook/quietDetectorOptions.js';
import { type GuardVerdict, withoutReasonHead } from './guardVerdicts.js';
import { ScanCost, type ScanPricing } from './scanCost.js';
import type { TranscriptRead } from './TranscriptParser.js';

/**
 * How a loop ended: the agent got out of it (it went on with other tool calls), the session ended
 * in it, or loopguard's own hooks stopped the session there (`stopped_by_loopguard`).
 */
export type LoopEnd = 'got_out' | 'session_end' | 'stopped_by_loopguard';

/** One loop the detector found in a session, with what it cost after the stop. */
export interface ScannedLoop {
  /** The loop kind of the nudge (`same_error`, `oscillation`, ...: the detector's own names). */
  kind: string;
  /** Step of the nudge. */
  nudgeStep: number;
  /** Tool call (1-based, as a person counts them) at which the nudge fell. */
  nudgeCall: number;
  /** The stop's kind, when the loop went on as another kind than the nudge's. */
  stopKind?: string;
  /** Step where loopguard would have stopped the session; `null`: the loop got a nudge and no stop. */
  stopStep: number | null;
  /** Tool call of the stop; `null` with no stop. */
  stopCall: number | null;
  /** The loop's last step: its last step the detector saw as part of it. */
  endStep: number;
  /** Tool call of the loop's last step. */
  endCall: number;
  /**
   * What loopguard's own hooks did, when the transcript records it (they were on): `stopped` (the
   * stop is theirs, and the waste counts from it) or `nudged`. Absent: the scan's replay only.
   */
  loopguard?: 'nudged' | 'stopped';
  /** Whether the agent got out of the loop or the session ended in it. */
  ended: LoopEnd;
  /** Tool calls the model made after the stop, up to the loop's end (0 with no stop). */
  wastedToolCalls: number;
  /** Of those, the calls loopguard's hooks refused before they ran (Codex denies every further repeat). */
  wastedDeniedCalls: number;
  /** Tokens of the replies after the stop, up to the loop's end; `null` where the transcript records no usage. */
  wastedTokens: number | null;
  /**
   * Dollars of the replies after the stop: each priced from its model (the pricing library, the
   * configuration's `spend.prices`), or `--price` times `wastedTokens`; `null` where no usage is recorded.
   */
  wastedCost?: number | null;
  /** The loop in one line: the repeating step and its result. */
  evidence: string;
  /**
   * The message loopguard gave or would have given (the stop's, else the nudge's), as `status
   * --session` and the dashboard quote its entry: its kind in words (`Stopped (same error): …`),
   * without a hook's `loopguard: ` (doors71); `kind` keeps the code.
   */
  message: string;
}

/** Where loopguard's spend guard stopped a session (its hooks were on), as the transcript records it. */
export interface SpendStop {
  /** The tool call it fell at (1-based). */
  call: number;
  /** Its message (`loopguard: this session reached its budget (…); loopguard stopped it.`). */
  message: string;
  /**
   * The calls loopguard denied before they ran after it: the agent asked again (a Codex turn, a
   * Gemini CLI subagent), each denied; `status`'s `N more calls refused after the stop` (gemscan65).
   */
  deniedAfter: number;
}

interface OpenLoop {
  kind: string;
  nudgeStep: number;
  nudgeCall: number;
  stopStep: number | null;
  stopCall: number | null;
  endStep: number;
  endCall: number;
  /** The stop's kind once there is one. */
  stopKind: string | null;
  /** The stop's message once there is one, else the nudge's. */
  message: string;
  /** The stop's evidence once there is one, else the nudge's. */
  evidence: StepVerdict['evidence'];
  /** The nudge's evidence. */
  nudgeEvidence: StepVerdict['evidence'];
  /** The tool call loopguard's own nudge or stop fell at: the evidence of a loop its message names no call of. */
  guardCall?: StepEvidence | undefined;
  loopguard?: 'nudged' | 'stopped';
  /** Whether the replay's own detector nudged in this loop (false: a loop known from loopguard's nudge only, so far). */
  replayed: boolean;
  wastedToolCalls: number;
  wastedDeniedCalls: number;
  wastedTokens: number;
  /** Tool calls (and denied ones), tokens and dollars counted when the stop came. */
  callsAtStop: number;
  deniedAtStop: number;
  tokensAtStop: number;
  costAtStop: number;
  unpricedAtStop: number;
  /** `null` when some of the tokens after the stop have no price: the waste's cost is unknown. */
  wastedCost: number | null;
}

const ONE_LINE = 160;

function oneLine(text: string, max = ONE_LINE): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

/** An action's text as a person reads it: the command of a `{"command": …}` input, else the text. */
function actionOf(action: string): string {
  if (!action.startsWith('{')) return action;
  try {
    const input = JSON.parse(action) as Record<string, unknown>;
    const main = input.command ?? input.cmd ?? input.file_path ?? input.path ?? input.pattern;
    return typeof main === 'string' ? main : action;
  } catch {
    return action; // shortened by the detector: not JSON any more
  }
}

/** One evidence step as a line: `Bash cat missing.txt → error "cat: missing.txt: No such file…"`. */
export function evidenceLine(evidence: StepEvidence | undefined): string {
  if (evidence === undefined) return '';
  if (evidence.message !== undefined) return oneLine(`message "${evidence.message}"`);
  const output =
    evidence.output === undefined
      ? ''
      : ` → ${evidence.error ? 'error ' : ''}"${oneLine(evidence.output, 80)}"`;
  return oneLine(`${evidence.tool ?? ''} ${actionOf(evidence.action ?? '')}`.trim() + output);
}

/** The first evidence line of a loopguard message (`- call 3: \`cat x\` → …`), for a loop known only from it. */
function messageEvidence(message: string): string {
  const line = message.split('\n').find((text) => text.startsWith('- '));
  return line === undefined ? '' : oneLine(line.replace(/^- (?:call|step) \d+: /, '').replaceAll('`', ''));
}

/**
 * Runs one session's steps through a {@link StepLoopDetector} as the hooks would, and keeps what
 * each loop cost. A loop opens at a nudge; it goes on while the detector's verdicts name a loop
 * (until the next nudge: the detector nudges again only after something was learned); its end is
 * the last such step. Its waste is what was spent after its stop up to that end: tool calls, and
 * the tokens of the replies in between. Memory stays flat: only the open loop and counters are kept.
 *
 * @example
 * const scan = new SessionScan(new StepLoopDetector(options));
 * for (const read of reads) scan.add(read);
 * scan.finish(); // { steps, toolCalls, deniedCalls, tokens, loops }
 */
export class SessionScan {
  private steps = 0;
  /** Tool calls the model made (a call's number is its place among them). */
  private toolCalls = 0;
  /** Of those, the calls loopguard refused before they ran. */
  private deniedCalls = 0;
  private tokens = 0;
  private lastActionStep = -1;
  /** The last tool call and its result, as read (a guard verdict's evidence is made from them only when needed). */
  private lastAction: ActionStep | undefined;
  private lastObservation: ObservationStep | undefined;
  private open: OpenLoop | undefined;
  private readonly loops: OpenLoop[] = [];
  /** loopguard's spend guard's stop, where its hooks gave one (the first), with the denied calls counted at it. */
  private spendStop: { call: number; message: string; deniedAt: number } | undefined;

  /** @param cost - prices the replies, when the scan has a price book. */
  constructor(
    private readonly detector: StepLoopDetector,
    readonly cost?: ScanCost,
  ) {}

  /**
   * `options` as every session's detector of a scan takes them: validated once (each detector would
   * validate its own: ≈ 0.25 ms a file with zod), logging nothing (a scan reads many sessions); none
   * set: the defaults, without zod (see {@link quietDetectorOptions}).
   * @throws ConfigurationError naming the offending option.
   */
  static detectorOptions(options: StepLoopDetectorOptions): StepLoopDetectorOptions {
    return quietDetectorOptions(options);
  }

  /**
   * A scan of one session through a fresh detector with `options` (best from
   * {@link SessionScan.detectorOptions}: else each is validated again, and logs nowhere by default),
   * its replies priced with `pricing` when given.
   */
  static of(options: StepLoopDetectorOptions, pricing?: ScanPricing): SessionScan {
    return new SessionScan(new StepLoopDetector(options), pricing && new ScanCost(pricing));
  }

  /**
   * Observes one record's steps; its tokens count from its first step on. loopguard's own nudges
   * and stops in it come after its steps.
   */
  add(read: TranscriptRead): void {
    this.tokens += read.tokens;
    this.cost?.add(read);
    for (const step of read.steps) {
      const verdict = this.detector.observe(step);
      const index = this.steps++;
      if (step.type === 'action') {
        this.toolCalls++;
        this.lastActionStep = index;
        this.lastAction = step;
        this.lastObservation = undefined;
      } else if (step.type === 'observation') this.lastObservation = step;
      this.judge(verdict, index);
    }
    // a call refused before it ran: no attempt and no change, only numbered (the hooks do the same)
    for (let n = 0; n < (read.unobservedCalls ?? 0); n++) {
      this.detector.countUnobservedCall();
      this.toolCalls++;
    }
    for (const guard of read.guard ?? []) this.guarded(guard);
  }

  /**
   * The session's counts and loops (a loop still open ends with the session), and the spend guard's
   * stop. `toolCalls` are the calls that ran (as every other door counts them), `deniedCalls` the
   * calls loopguard refused before they ran; a call's number (`stopCall`, ...) counts both.
   */
  finish(): {
    steps: number;
    toolCalls: number;
    deniedCalls: number;
    tokens: number;
    loops: ScannedLoop[];
    spendStop?: SpendStop;
  } {
    this.close();
    return {
      steps: this.steps,
      toolCalls: this.toolCalls - this.deniedCalls,
      deniedCalls: this.deniedCalls,
      tokens: this.tokens,
      loops: this.loops.map((loop) => this.report(loop)),
      ...(this.spendStop === undefined ? {} : { spendStop: this.spendStopOf(this.spendStop) }),
    };
  }

  /** The spend stop with the calls denied after it. */
  private spendStopOf({ call, message, deniedAt }: NonNullable<SessionScan['spendStop']>): SpendStop {
    return { call, message, deniedAfter: this.deniedCalls - deniedAt };
  }

  private judge(verdict: StepVerdict, index: number): void {
    const loop = this.open;
    if (verdict.action === 'nudge') {
      if (loop !== undefined && this.isTheHooksLoop(loop)) {
        loop.replayed = true;
        if (loop.evidence.length === 0) loop.evidence = loop.nudgeEvidence = verdict.evidence;
        this.extend(loop, index);
        return;
      }
      this.opened(String(verdict.loopType), index, verdict.message ?? '', verdict.evidence).replayed = true;
      return;
    }
    if (loop === undefined || verdict.loopType === null) return;
    if (verdict.action === 'stop' && loop.stopStep === null) {
      this.stopAt(loop, index, String(verdict.loopType), verdict.message ?? '');
      loop.evidence = verdict.evidence;
    }
    this.extend(loop, index);
  }

  /**
   * Whether a replay's nudge is `loop` going on rather than a new loop: loopguard's hooks nudged
   * at the same tool call just before the replay did (Codex writes the hook's context before the
   * call's output the replay nudges at), or they stopped it and deny its every further repeat
   * (Codex's turn goes on).
   */
  private isTheHooksLoop(loop: OpenLoop): boolean {
    if (loop.loopguard === 'stopped') return true;
    return loop.loopguard === 'nudged' && !loop.replayed && loop.nudgeCall === this.toolCalls;
  }

  /**
   * loopguard's own verdict, where its hooks gave it: its stop is the stop (the waste counts from
   * it, whatever the replay found); its nudge marks the replay's open loop, or opens one.
   */
  private guarded(guard: GuardVerdict): void {
    if (guard.denied) this.deniedCalls++;
    // a refused call is no loop: the call did not run, the session goes on
    if (guard.action === 'refusal') return;
    if (guard.action === 'spend_stop') {
      // no loop: the session's budget; Codex denies every further call the same way
      this.spendStop ??= { call: this.toolCalls, message: guard.message, deniedAt: this.deniedCalls };
      return;
    }
    const index = Math.max(0, this.steps - 1);
    const open = this.open;
    if (guard.action === 'nudge') {
      // the replay's loop at its nudge, else a loop the replay did not find
      const nudged =
        open !== undefined && open.stopStep === null && open.loopguard === undefined
          ? open
          : this.opened(guard.kind, index, guard.message, []);
      nudged.loopguard = 'nudged';
      nudged.guardCall ??= this.lastCall();
      return;
    }
    const loop = open ?? this.opened(guard.kind, index, guard.message, []);
    loop.guardCall ??= this.lastCall();
    // Codex: every further repeat is denied too, and each denial repeats the stop it was
    if (loop.loopguard !== 'stopped') this.stopAt(loop, index, guard.kind, guard.message);
    loop.loopguard = 'stopped';
    this.extend(loop, index);
  }

  /** The last tool call with its result, as evidence (qa68: a Gemini CLI stop's message names none). */
  private lastCall(): StepEvidence | undefined {
    const action = this.lastAction;
    if (action === undefined) return undefined;
    const output = this.lastObservation;
    return {
      step: this.lastActionStep,
      call: this.toolCalls,
      tool: action.tool,
      action: typeof action.input === 'string' ? action.input : JSON.stringify(action.input),
      ...(output === undefined ? {} : { output: output.output, error: output.error === true }),
    };
  }

  /** A new loop at its nudge (the open one is closed). */
  private opened(kind: string, index: number, message: string, evidence: StepVerdict['evidence']): OpenLoop {
    this.close();
    this.open = {
      kind,
      nudgeStep: index,
      nudgeCall: this.toolCalls,
      stopStep: null,
      stopCall: null,
      endStep: index,
      endCall: this.toolCalls,
      stopKind: null,
      message,
      evidence,
      nudgeEvidence: evidence,
      replayed: false,
      wastedToolCalls: 0,
      wastedDeniedCalls: 0,
      wastedTokens: 0,
      callsAtStop: 0,
      deniedAtStop: 0,
      tokensAtStop: 0,
      costAtStop: 0,
      unpricedAtStop: 0,
      wastedCost: 0,
    };
    return this.open;
  }

  /** The loop's stop is here: its waste counts from now. */
  private stopAt(loop: OpenLoop, index: number, kind: string, message: string): void {
    loop.stopStep = index;
    loop.stopCall = this.toolCalls;
    loop.stopKind = kind;
    loop.message = message;
    loop.callsAtStop = this.toolCalls;
    loop.deniedAtStop = this.deniedCalls;
    loop.tokensAtStop = this.tokens;
    loop.costAtStop = this.cost?.usd ?? 0;
    loop.unpricedAtStop = this.cost?.unpricedTokens ?? 0;
  }

  /** The loop goes on to step `index`; what it spent after its stop is its waste. */
  private extend(loop: OpenLoop, index: number): void {
    loop.endStep = index;
    loop.endCall = this.toolCalls;
    if (loop.stopStep !== null) {
      loop.wastedToolCalls = this.toolCalls - loop.callsAtStop;
      loop.wastedDeniedCalls = this.deniedCalls - loop.deniedAtStop;
      loop.wastedTokens = this.tokens - loop.tokensAtStop;
      const unpriced = (this.cost?.unpricedTokens ?? 0) - loop.unpricedAtStop;
      loop.wastedCost = unpriced > 0 ? null : (this.cost?.usd ?? 0) - loop.costAtStop;
    }
  }

  private close(): void {
    if (this.open !== undefined) this.loops.push(this.open);
    this.open = undefined;
  }

  private report(loop: OpenLoop): ScannedLoop {
    const stop = loop.evidence;
    // the repeating tool call says more than a message said beside it (the stop may come from
    // another rule than the nudge: then the nudge's tool call is the evidence)
    const call = (evidence: StepVerdict['evidence']) =>
      evidence.findLast((step) => step.action !== undefined);
    const gotOut = this.lastActionStep > loop.endStep;
    return {
      kind: loop.kind,
      ...(loop.stopKind !== null && loop.stopKind !== loop.kind ? { stopKind: loop.stopKind } : {}),
      nudgeStep: loop.nudgeStep,
      nudgeCall: loop.nudgeCall,
      stopStep: loop.stopStep,
      stopCall: loop.stopCall,
      endStep: loop.endStep,
      endCall: loop.endCall,
      ended: gotOut ? 'got_out' : loop.loopguard === 'stopped' ? 'stopped_by_loopguard' : 'session_end',
      ...(loop.loopguard === undefined ? {} : { loopguard: loop.loopguard }),
      wastedToolCalls: loop.wastedToolCalls,
      wastedDeniedCalls: loop.wastedDeniedCalls,
      wastedTokens: loop.wastedTokens,
      ...(this.cost === undefined ? {} : { wastedCost: loop.wastedCost }),
      evidence:
        evidenceLine(call(stop) ?? call(loop.nudgeEvidence) ?? stop[stop.length - 1]) ||
        messageEvidence(loop.message) ||
        evidenceLine(loop.guardCall),
      message: messageWords(withoutReasonHead(loop.message)),
    };
  }
}
