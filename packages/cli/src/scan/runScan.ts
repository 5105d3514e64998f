import { statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { checkedHookConfig } from '../hook/checkedHookConfig.js';
import { DEFAULT_HOOK_CONFIG, type HookConfig } from '../hook/hookConfig.js';
import { projectPricesNote } from '../hook/projectHookSettings.js';
import { CliError } from '../terminal/CliError.js';
import type { CliIo } from '../terminal/cliIo.js';
import { EXIT_CODES } from '../terminal/exitCodes.js';
import { printable } from '../terminal/terminalText.js';
import { emptyScanHint } from './emptyScanHint.js';
import { progressLine } from './progressBar.js';
import { inProjectsOptions, type ProjectsSeen, sessionSetupProject } from './projectOptions.js';
import { withRecords } from './recordedSessions.js';
import { renderTerminal } from './renderTerminal.js';
import { ScanCache, scanCacheFile, scanCacheKey } from './scanCache.js';
import { scanPaths } from './scanPaths.js';
import { scanReport } from './scanReport.js';
import { type SessionFilter, sessionFilter } from './sessionFilter.js';
import { transcriptPlaces } from './transcriptPlaces.js';
import type { WorkerPool } from './workerPool.js';

/** The options of `loopguard scan` (see commands/scan.ts), parsed. */
export interface ScanOptions {
  /** `--json`: the report as JSON. @default the terminal's table */
  json?: boolean;
  /** `--html`: also write the report as one page to this file. @default undefined (no page) */
  html?: string;
  /** `--price`: one price per million tokens for every model. @default each model's own */
  price?: number;
  /** `--since`: the first day, `YYYY-MM-DD`. @default undefined (no first day) */
  since?: string;
  /** `--until`: the last day, `YYYY-MM-DD`. @default undefined (no last day) */
  until?: string;
  /** `--project`: one project's sessions only. @default undefined (every project) */
  project?: string;
  /** `--timezone`: the days' time zone. @default the machine's */
  timezone?: string;
  /**
   * `--budget`: a spend budget per session, US dollars, to show what it would have saved.
   * @default undefined (no budget column)
   */
  budget?: number;
  /** `--no-cache` gives `false`: every file is read, and the cache is neither read nor written. @default true */
  cache?: boolean;
}

/** Below this many files no progress bar is drawn. */
const PROGRESS_FROM = 20;

/** Why `--html`'s file cannot be written, in words: a file-system code is no reason a user reads (qa68). */
const IS_A_FOLDER = 'it is a folder: name a file in it';
const WRITE_FAULTS: Readonly<Record<string, string>> = {
  EISDIR: IS_A_FOLDER,
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is used up',
  EROFS: 'a read-only file system',
};

/** Whether `path` is a folder (one that cannot be looked at is not one). */
function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Whether `path` is not there (as opposed to there but not to be looked at). */
function missing(path: string): boolean {
  try {
    statSync(path);
    return false;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR';
  }
}

/**
 * What `loopguard scan` does once its arguments are parsed: reads the project's options, scans
 * `paths` (the agents' own places when none) on `workers`, prints the report. Loaded by the
 * command after its workers have started (they load the detector meanwhile), or with what starts
 * them once the files the cache does not know are found.
 * @throws CliError on a usage error (a path that is not there, options that do not go together).
 */
export async function runScan(
  paths: string[],
  options: ScanOptions,
  io: CliIo,
  workers: WorkerPool | (() => WorkerPool | undefined) | undefined,
): Promise<void> {
  if (options.since !== undefined && options.until !== undefined && options.since > options.until)
    throw new CliError(`--since ${options.since} is after --until ${options.until}`, EXIT_CODES.usage);
  const filter: SessionFilter = {
    ...(options.since === undefined ? {} : { since: options.since }),
    ...(options.until === undefined ? {} : { until: options.until }),
    ...(options.project === undefined ? {} : { project: options.project }),
    ...(options.timezone === undefined ? {} : { timeZone: options.timezone }),
  };
  const places = paths.length > 0 ? undefined : transcriptPlaces(io.env, io.cwd);
  const roots =
    places === undefined
      ? paths.map((path) => resolve(io.cwd, path))
      : places.map((place) => place.path).filter((path) => !missing(path));
  for (const [i, root] of roots.entries()) {
    // only a path that is not there is a usage error; one that cannot be looked at (EACCES,
    // ELOOP) is one line from the scan, which goes on with the others
    if (missing(root)) throw new CliError(`${paths[i] ?? root}: no such file or folder`, EXIT_CODES.usage);
  }
  if (options.html !== undefined) {
    // said before the reading (minutes over a long history), not after it
    const file = resolve(io.cwd, options.html);
    const folder = dirname(file);
    if (!isFolder(folder))
      throw new CliError(`--html: cannot write ${file} (no folder ${folder})`, EXIT_CODES.usage);
    if (isFolder(file)) throw new CliError(`--html: cannot write ${file} (${IS_A_FOLDER})`, EXIT_CODES.usage);
  }
  let detector: HookConfig['detector'];
  let prices: HookConfig['prices'];
  try {
    ({ detector, prices } = await checkedHookConfig(io.cwd)); // checked once, before any file is read
  } catch (error) {
    // the hooks fail open on it and guard nothing here: the sessions are replayed with the defaults,
    // and those started here are listed as not guarded, in status's words (sessions57)
    const why = printable((error as Error).message.split('\n')[0] ?? '');
    io.stderr(
      `loopguard scan: ${why}: the hooks fail open on it; sessions replayed with the default options\n`,
    );
    ({ detector, prices } = DEFAULT_HOOK_CONFIG);
  }
  const progress = io.stderrIsTTY === true;
  if (options.budget !== undefined && options.price !== undefined)
    throw new CliError('--budget needs the per-model prices: give it without --price', EXIT_CODES.usage);
  // one price for every model (--price) prices the waste at the end; else each reply from its model
  const setupOf = (config: Pick<HookConfig, 'detector' | 'prices'>) => ({
    detector: config.detector,
    pricing:
      options.price === undefined
        ? { prices: config.prices, ...(options.budget === undefined ? {} : { budgetUsd: options.budget }) }
        : undefined,
  });
  const { pricing } = setupOf({ detector, prices });
  // a file's result depends on its bytes, the build, the detector's options and the price book's source
  const cache =
    options.cache === false
      ? undefined
      : ScanCache.open(scanCacheFile(io.env), scanCacheKey({ detector, pricing: pricing ?? null }));
  if (cache?.offReason !== undefined) io.stderr(`loopguard scan: ${printable(cache.offReason)}\n`);
  const scanned = await scanPaths(
    roots,
    detector,
    {
      onProblem: ({ file, problem }) =>
        io.stderr(`${progress ? '\r' : ''}loopguard scan: ${printable(`${file}: ${problem}`)}\n`),
      onProgress: (done, total) => {
        if (progress && total >= PROGRESS_FROM) io.stderr(progressLine(done, total));
      },
    },
    pricing,
    workers,
    cache,
  );
  // each session judged and priced as its project's hooks judge it (sessions53)
  const judged = await inProjectsOptions(
    scanned.sessions,
    { detector, pricing },
    setupOf,
    // few files, read by this thread: the first scan's workers have ended with it
    async (files, setup) => (await scanPaths(files, setup.detector, {}, setup.pricing)).sessions,
  );
  // what loopguard did, read now (never cached: a session's record grows while it runs)
  const sessions = withRecords(judged).filter(sessionFilter(filter));
  const report = scanReport(sessions, scanned.files, scanned.problems.length, options.price, options.budget);
  // the prices each session's dollars were counted at, when a project set its own (trust54)
  if (pricing !== undefined && report.totals.costUsd !== undefined) {
    const seen: ProjectsSeen = new Map();
    const projects = new Set(sessions.map((session) => sessionSetupProject(session, seen) ?? io.cwd));
    const notes = [...projects].flatMap((project) => printable(projectPricesNote(project) ?? '') || []);
    if (notes.length > 0) report.totals.projectPrices = notes;
  }
  if (options.html !== undefined) {
    const file = resolve(io.cwd, options.html);
    // loaded only for --html: the page's assets come from the server package (~0.2 s to load)
    const { ForeignReportFileError, writeHtmlReport } = await import('./htmlReport.js');
    try {
      await writeHtmlReport(file, report, options.timezone);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? String(error);
      const reason =
        error instanceof ForeignReportFileError
          ? error.message
          : code === 'ELOOP'
            ? 'it is a symbolic link'
            : (WRITE_FAULTS[code] ?? code);
      throw new CliError(`--html: cannot write ${file} (${reason})`, EXIT_CODES.usage);
    }
  }
  const hint =
    sessions.length === 0
      ? emptyScanHint({
          ...(places === undefined ? {} : { places }),
          paths,
          read: scanned.sessions.length,
          filter,
        })
      : undefined;
  const wrote = options.html === undefined ? '' : `HTML report: ${resolve(io.cwd, options.html)}`;
  if (options.json === true) {
    io.stdout(`${JSON.stringify(report, null, 2)}\n`);
    if (hint !== undefined) io.stderr(`loopguard scan: ${hint}\n`);
    if (wrote !== '') io.stderr(`loopguard scan: ${wrote}\n`);
  } else {
    io.stdout(
      `${renderTerminal(report, options.price, options.timezone, io.columns)}${hint === undefined ? '' : `\n${hint}\n`}${wrote === '' ? '' : `\n${wrote}\n`}`,
    );
  }
}
