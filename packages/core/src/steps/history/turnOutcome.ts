import { memo } from '../../kernel/memo.js';
import { firstErrorLine } from '../../signatures/errorSignature.js';
import {
  echoedTokens,
  echoTokens,
  type Fingerprint,
  fingerprint,
  fingerprintedText,
  isShortReply,
  lineClass,
  lineClassAgainst,
  mix32,
  OUTPUT_HEAD,
} from '../keys/fingerprint.js';
import { shorten } from '../keys/shorten.js';
import { actionKey, boundLines } from '../keys/stepKeys.js';
import { ANY_NAMES } from '../probes/actedReads.js';
import { MAX_PATHS, type ProbeRun } from '../probes/ProbeLedger.js';
import { maskNoise, typedWords } from '../probes/probeKey.js';
import { type ProbeOutcome, probeResult } from '../probes/probeResult.js';
import { outputWords } from '../probes/probeVerdict.js';
import { isFramingOnly } from './framingLines.js';
import { pairKeyOf } from './historyState.js';
import type { PendingAction } from './pendingAction.js';
import { RecentMemo } from './recentMemo.js';
import { keyHash, type StepEvidence, type StepHistory, type Turn } from './stepHistory.js';

const EMPTY_ECHO: ReadonlySet<number> = new Set();
/** Failure texts whose first error line is remembered (the corpora's repeats all fall within the last 16). */
const ERROR_LINE_MEMO = 32;
/** Outputs whose fingerprint is remembered (at most 6,000 characters each are kept: see `fingerprintedText`). */
const FINGERPRINT_MEMO = 64;
const NO_OBSERVATION = 0;
const NO_RESULT: ProbeOutcome = Object.freeze({ result: 0, key: () => '', verdict: () => 0 });

/**
 * Builds turns and judges what each taught: computes the observation's fingerprint, its error
 * class, and whether it is informative (see {@link StepHistory}), and records the lines it showed.
 */
export class TurnReader {
  /** A memo of the first error line of recent failure texts (a cache: same answers without it). */
  private readonly firstErrorLines = new RecentMemo<string>(ERROR_LINE_MEMO);

  /** A memo of the fingerprints of recent outputs that do not depend on their action (a cache: same answers without it). */
  private readonly prints = new RecentMemo<Fingerprint>(FINGERPRINT_MEMO);

  constructor(private readonly history: StepHistory) {}

  /** The turn of `action` (undefined: a rejected reply) answered by `output` (undefined: no observation). */
  read(index: number, action: PendingAction | undefined, shown: string | undefined, error: boolean): Turn {
    // A success with no line beyond the agent's framing is read as the empty output Gemini CLI and
    // Codex give for the same command (see `isFramingOnly`); the evidence keeps what was shown.
    const output = shown !== undefined && !error && isFramingOnly(shown) ? '' : shown;
    const evidence: StepEvidence = { step: index };
    if (action?.call !== undefined) evidence.call = action.call;
    if (action !== undefined) {
      evidence.tool = action.tool;
      evidence.action = shorten(action.text);
    }
    if (shown !== undefined) {
      evidence.output = shorten(shown);
      evidence.error = error;
    }
    const actionKey = action?.key ?? '';
    const actionHash = keyHash(actionKey);
    const newAction = action !== undefined && this.history.learnActionHash(actionHash);
    let outcomeKey = NO_OBSERVATION;
    let errorClass = 0;
    let informative = false;
    let quiet = false;
    let duplicates = 0;
    let state = 0;
    let result: ProbeOutcome = NO_RESULT;
    const rejected = action === undefined || action.text.trim() === '';
    const applied =
      !rejected &&
      !error &&
      output !== undefined &&
      action.kind.kind === 'change' &&
      action.kind.probe === '';
    // The part of the output that is read (its head and tail when long), cut once for every reader.
    const bounded = output === undefined ? undefined : fingerprintedText(output);
    if (output !== undefined) {
      const print = this.fingerprintOf(
        output,
        bounded as string,
        action,
        action?.kind.probe !== undefined && action.kind.probe !== '',
      );
      outcomeKey = mix32(print.key ^ (error ? 0x9e3779b9 : 0)) || 1;
      const newLines = this.history.learnLines(print.lines);
      const newShapes = this.history.learnShapes(print.shapes);
      duplicates = print.duplicates;
      if (applied) state = stateOf(print.lines, duplicates, output.length);
      if (action?.kind.probe) result = probeResult(output, print, error);
      // New only in its counts, with blocks repeated inside: the output accumulated.
      const accumulated = newShapes === 0 && print.duplicates > 0;
      // Learned on every read, so that only the first look at its files counts.
      const firstLook = this.firstLook(action);
      if (error) {
        errorClass = this.errorClass(output, action, print.key);
        informative = this.history.learnError(errorClass);
      } else {
        // A silent success of a new action is an effect (one command over many files), not a repeat.
        quiet = print.lines.length === 0;
        informative = (newLines > 0 && !accumulated) || (quiet && newAction) || firstLook;
      }
    } else informative = newAction;
    const probeRun = rejected ? undefined : probeRunOf(action, output, bounded, error, result);
    const read =
      !rejected && !error && output !== undefined && action?.kind.kind === 'read'
        ? action.kind.paths.join(' ')
        : '';
    this.history.searches.record(read, probeRun?.change === true, output ?? '', evidence);
    const turn: Turn = {
      step: index,
      actionKey,
      tool: action?.tool ?? '',
      actionText: action?.text ?? '',
      outcomeKey,
      pairKey: pairKeyOf(actionHash, outcomeKey),
      error,
      errorClass,
      informative,
      quiet,
      rejected,
      applied,
      state,
      outputLength: output?.length ?? 0,
      duplicates,
      evidence,
    };
    if (probeRun !== undefined) turn.probeRun = probeRun;
    return turn;
  }

  /**
   * `fingerprint(output, echo of action)`, remembered for the repeated outputs of a loop. The
   * action's words are read only for a short reply, the only output they can mask in. `text` is
   * `fingerprintedText(output)`.
   */
  private fingerprintOf(
    output: string,
    text: string,
    action: PendingAction | undefined,
    withResult: boolean,
  ): Fingerprint {
    if (isShortReply(output)) {
      const echo = echoOf(action, output);
      if (echo.size > 0) return fingerprint(output, echo, withResult);
    }
    let print = this.prints.find('', text);
    if (print === undefined || (withResult && print.result === 0)) {
      print = fingerprint(text, EMPTY_ECHO, withResult);
      this.prints.remember('', text, print);
    }
    return print;
  }

  /**
   * Whether the action reads files no read of the run named before: the first look at a file
   * teaches its content, even when it reads like another file's (a sweep over files).
   */
  private firstLook(action: PendingAction | undefined): boolean {
    if (action === undefined || action.kind.kind !== 'read' || action.kind.paths.length === 0) return false;
    const files = action.kind.paths.join(' ');
    // Temporary paths (`/tmp/run-a1/log.txt`) are one file whatever their random part.
    return this.history.learnAction(`\u0002${files.includes('tmp') ? actionKey('read', files) : files}`);
  }

  /**
   * The class of a failure: its first error line without digits or echoed words; for a change an
   * editing tool refused (not a shell line: see `ActionKind.editor`), with no such line, the first
   * line its refusal says something on (see {@link refusalLine}); else its whole outcome.
   */
  private errorClass(output: string, action: PendingAction | undefined, outcome: number): number {
    const head = output.length > OUTPUT_HEAD ? output.slice(0, OUTPUT_HEAD) : output;
    const first = this.firstErrorLines.get('', head, () => firstErrorLine(boundLines(head)) ?? '');
    if (first !== '') return lineClass(first, echoOf(action, first));
    const whole = mix32(outcome ^ 0x51ed270b) || 2;
    // A refusal is the tool's own message, not a program's output: its first line names it.
    if (action?.kind.editor !== true) return whole;
    const line = refusalLine(head);
    // Against the attempt's text (an edit of kilobytes): the words it echoes are masked.
    return line === '' ? whole : lineClassAgainst(line, action.text);
  }
}

/**
 * The tokens of `text` that the action's text holds too (what `text` echoes of it): looked for one
 * by one in the action's text when `text` has few (a short reply, an error line: see
 * `echoedTokens`), else read from the action's whole token set, computed once and kept on the
 * action. The same answer either way; the first spares the scan of a long action (an edit that
 * carries a whole file) for a reply of a few words.
 */
function echoOf(action: PendingAction | undefined, text: string): ReadonlySet<number> {
  if (action === undefined) return EMPTY_ECHO;
  if (action.echo === undefined) {
    const echoed = echoedTokens(text, action.text);
    if (echoed !== undefined) return echoed;
  }
  action.echo ??= echoTokens(action.text);
  return action.echo;
}

/**
 * The first line of a tool's refusal that says something: not empty, not a bare header of one word
 * (OpenHands' editor opens with `ERROR:` alone, then `No replacement was performed, old_str \`…\` did
 * not appear verbatim in …`); `''` when none. Such a refusal has no line the error pattern knows, and
 * its whole text echoes the attempt (the `old_str` it could not find), so without this every
 * attempt refused the same way was a class of its own.
 */
function refusalLine(head: string): string {
  let start = 0;
  while (start < head.length) {
    let end = head.indexOf('\n', start);
    if (end === -1) end = head.length;
    const line = head.slice(start, end).trim();
    if (line !== '' && !BARE_HEADER.test(line)) return line;
    start = end + 1;
  }
  return '';
}

/** A line of one word and punctuation alone (`ERROR:`, `Error`, `---`): a header that names nothing. */
const BARE_HEADER = /^\W*\w*\W*$/;

/** Where an applied change left the work, as its reply shows it (see `Turn.state`); never 0. */
function stateOf(lines: readonly number[], duplicates: number, length: number): number {
  // A polynomial hash over the line fingerprints (already well mixed), mixed once at the end.
  let h = length ^ Math.imul(duplicates, 0x9e3779b1);
  for (let i = 0; i < lines.length; i++) h = (Math.imul(h, 31) + (lines[i] as number)) | 0;
  return mix32(h) || 1;
}

/**
 * What a turn did to the work and, for a probe with a result, what it showed. A change that failed
 * (an edit whose `old_str` was not found) changed nothing; a line that changes and then runs its probe
 * (`sed -i … && python x.py`) counts as both, the change first. `bounded` is
 * `fingerprintedText(output)`.
 */
function probeRunOf(
  action: PendingAction | undefined,
  output: string | undefined,
  bounded: string | undefined,
  error: boolean,
  outcome: ProbeOutcome,
): ProbeRun | undefined {
  if (action === undefined) return undefined;
  const { kind, probe, paths } = action.kind;
  const ran = probe !== '' && output !== undefined;
  const change = kind === 'change' && (ran || !error);
  const read = kind === 'read' && output !== undefined && !error;
  // What a read's result is computed from (at most 6,001 characters: see `fingerprintedText`).
  const readText = read ? (bounded as string) : '';
  return {
    probe: ran ? probe : '',
    kind,
    label: ran ? shorten(probe, 120) : '',
    change,
    paths,
    fullWrite: action.kind.fullWrite === true,
    result: outcome.result,
    readKey: read ? action.key : '',
    // A read's result, computed only when the ledger compares a read run again: its text, noise masked.
    readResult: read ? () => keyHash(maskNoise(readText)) : NOTHING,
    readText,
    key: outcome.key,
    verdict: outcome.verdict,
    words: ran ? memo(() => outputWords(output as string)) : NO_HASHES,
    length: output?.length ?? 0,
    typed: kind === 'change' ? memo(() => typedWords(action.text)) : NO_WORDS,
    outputPaths: ran ? memo(() => sourcePaths(output as string)) : NO_PATHS,
    // A failing line's output is read for a search that found nothing (see `UnseenPrints.searched`).
    output: output !== undefined && (ran || error) ? () => output : NO_OUTPUT,
    prints: action.prints,
    search: action.search,
    printWork: action.printWork,
    written: action.written ?? ANY_NAMES,
  };
}

// Shared answers of the turns that have nothing to compute (no closure per turn).
const NOTHING = (): number => 0;
const NO_WORDS = (): string[] => [];
const NO_PATHS = (): string[] => [];
const NO_OUTPUT = (): string => '';
const NO_HASHES = (): number[] => [];

/** Python traceback frames, else absolute paths of source files. */
const SOURCE_PATH = /File "([^"\n]+)"|(?:^|[\s'"(=])(\/(?:[\w.+-]+\/)+[\w.+-]+\.[A-Za-z]\w{0,5})\b/g;

/** The source paths an output names, innermost (last) first, at most {@link MAX_PATHS}; read from its bounded text. */
export function sourcePaths(output: string): string[] {
  const text = fingerprintedText(output);
  const found: string[] = [];
  SOURCE_PATH.lastIndex = 0;
  for (let match = SOURCE_PATH.exec(text); match !== null; match = SOURCE_PATH.exec(text)) {
    const path = (match[1] ?? match[2]) as string;
    const at = found.indexOf(path);
    if (at !== -1) found.splice(at, 1);
    found.push(path);
  }
  return found.reverse().slice(0, MAX_PATHS);
}
