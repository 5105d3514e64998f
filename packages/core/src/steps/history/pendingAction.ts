import { MAX_EDIT_PRINTS, type PendingActionState } from '../options/stepSnapshot.js';
import { packHashes, unpackHashes, type WrittenNames } from '../probes/actedReads.js';
import type { FileSearch } from '../probes/fileSearch.js';
import {
  type PrintWork,
  type PrintWorkReader,
  printWorkOf,
  printWorkOfState,
} from '../probes/printRewrite.js';
import type { PrintEdit, PrintEditReader } from '../probes/unseenPrints.js';

/**
 * An action waiting for its observation: its snapshot's fields ({@link PendingActionState}), with what
 * it does to prints and the search it ends with read when asked.
 */
export interface PendingAction
  extends Omit<PendingActionState, 'prints' | 'search' | 'printWork' | 'written'> {
  /** For a change, the names it writes, read when asked (see `writtenNames`; `undefined`: none read, it may act on anything). */
  written?: WrittenNames | undefined;
  /** For a change, the print calls it adds and takes out, read when asked (`undefined`: none). */
  prints?: PrintEditReader | undefined;
  /** The search of one file the command line ends with (see `searchOf`; `undefined`: none). */
  search?: (() => FileSearch | undefined) | undefined;
  /** For a change, what it does to debug prints, read when asked (see `printWorkOf`; `undefined`: none). */
  printWork?: PrintWorkReader | undefined;
  /** Raw hashes of the action's tokens, computed when its observation first needs them. */
  echo?: Set<number>;
}

/** The pending action as the detector's snapshot keeps it (`pending`): its readers' answers, copied. */
export function pendingActionState(pending: PendingAction): PendingActionState {
  return {
    step: pending.step,
    ...(pending.call === undefined ? {} : { call: pending.call }),
    tool: pending.tool,
    text: pending.text,
    key: pending.key,
    exempt: pending.exempt,
    kind: { ...pending.kind, paths: [...pending.kind.paths] },
    ...printsState(pending.prints),
    ...(pending.printWork === undefined ? {} : { printWork: printWorkState(pending.printWork) }),
    ...searchState(pending.search),
    ...writtenState(pending.written),
  };
}

/** The pending action a snapshot's `pending` state restores: its readers give the kept answers. */
export function pendingActionOf(pending: PendingActionState): PendingAction {
  return {
    ...pending,
    prints: pending.prints === undefined ? undefined : () => pending.prints as PrintEdit,
    search: pending.search === undefined ? undefined : () => pending.search,
    printWork: pending.printWork === undefined ? undefined : printWorkOfState(pending.printWork),
    written: writtenOf(pending.written),
  };
}

/** A pending change's written names as its snapshot keeps them: absent when it may act on anything. */
function writtenState(written: WrittenNames | undefined): { written?: string } {
  const names = written?.();
  return names === undefined ? {} : { written: packHashes(names) };
}

/** The written names a snapshot's pending change kept (absent: it may act on anything). */
function writtenOf(packed: string | undefined): WrittenNames | undefined {
  if (packed === undefined) return undefined;
  const names = unpackHashes(packed);
  return () => names;
}

/** A pending action's search of a file as its snapshot keeps it: absent when it has none. */
function searchState(search: (() => FileSearch | undefined) | undefined): { search?: FileSearch } {
  const read = search?.();
  return read === undefined ? {} : { search: { ...read } };
}

/** A pending change's print work as its snapshot keeps it. */
function printWorkState(reader: PrintWorkReader): PrintWork {
  const work = printWorkOf(undefined, reader);
  return work.rewritten === undefined
    ? { typed: work.typed.slice(0, MAX_EDIT_PRINTS) }
    : { typed: work.typed.slice(0, MAX_EDIT_PRINTS), rewritten: work.rewritten.slice(0, MAX_EDIT_PRINTS) };
}

/** A pending action's print edit as its snapshot keeps it: absent when it has none. */
function printsState(prints: PrintEditReader | undefined): { prints?: PrintEdit } {
  const edit = prints?.();
  if (edit === undefined || (edit.added.length === 0 && edit.removed.length === 0)) return {};
  return { prints: { added: [...edit.added], removed: [...edit.removed] } };
}
