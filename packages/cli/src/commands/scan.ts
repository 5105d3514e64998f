import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { StepLoopDetector } from '@loopguard/core/steps';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { CliError } from '../CliError.js';
import type { CliIo } from '../cliIo.js';
import { EXIT_CODES } from '../exitCodes.js';
import { readHookConfig } from '../hook/hookConfig.js';
import { emptyScanHint } from '../scan/emptyScanHint.js';
import { progressLine } from '../scan/progressBar.js';
import { renderTerminal } from '../scan/renderTerminal.js';
import { scanPaths } from '../scan/scanPaths.js';
import { scanReport } from '../scan/scanReport.js';
import { dayFormat, parseDay, type SessionFilter, sessionFilter } from '../scan/sessionFilter.js';
import { transcriptPlaces } from '../scan/transcriptPlaces.js';

interface ScanOptions {
  json?: boolean;
  html?: string;
  price?: number;
  since?: string;
  until?: string;
  project?: string;
  timezone?: string;
  budget?: number;
}

/** Below this many files no progress bar is drawn. */
const PROGRESS_FROM = 20;

/** Commander parser of `--price`: a non-negative number (money per million tokens). */
function parsePrice(value: string): number {
  const price = /^\d+(\.\d+)?$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isFinite(price))
    throw new InvalidArgumentError('must be a number ≥ 0 (money per million tokens).');
  return price;
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

/** Commander parser of `--since` / `--until`: a day, `YYYYMMDD` or `YYYY-MM-DD` (as ccusage). */
function parseDayOption(value: string): string {
  const day = parseDay(value);
  if (day === undefined) throw new InvalidArgumentError('must be a date, YYYYMMDD or YYYY-MM-DD.');
  return day;
}

/** Commander parser of `--timezone`: an IANA time zone. */
function parseTimeZone(value: string): string {
  try {
    dayFormat(value);
  } catch {
    throw new InvalidArgumentError('must be an IANA time zone (UTC, Europe/Paris, America/New_York).');
  }
  return value;
}

/** Commander parser of `--budget`: a positive number of US dollars. */
function parseBudget(value: string): number {
  const budget = /^\d+(\.\d+)?$/.test(value) ? Number(value) : Number.NaN;
  if (!(budget > 0)) throw new InvalidArgumentError('must be a number of US dollars > 0.');
  return budget;
}

/**
 * `loopguard scan [PATH...] [--json] [--html file] [--price n] [--budget usd] [--since day] [--until day] [--project p]`: runs the step detector over the
 * transcripts agents already wrote (Claude Code, Codex, Gemini CLI, `loopguard run` artifacts, step
 * JSONL), as if loopguard's hooks had been installed, and reports what each loop cost after
 * loopguard's stop. With no path, the agents' default places. See docs/scan.md.
 * @example loopguard scan ~/.claude/projects --price 3
 */
export function registerScanCommand(program: Command, io: CliIo): void {
  program
    .command('scan')
    .description(
      "Read the agents' transcripts and report what loops cost after the point loopguard would have stopped them.",
    )
    .argument('[paths...]', 'transcript files or folders (default: the agents’ own places)')
    .option('--json', 'print the report as JSON')
    .option('--html <file>', 'also write the report as one self-contained HTML page with charts')
    .addOption(
      new Option(
        '--price <n>',
        'one price per million tokens for every model (default: each model priced from the pricing library)',
      ).argParser(parsePrice),
    )
    .addOption(
      new Option(
        '--budget <usd>',
        'show what a spend budget of this many US dollars per session would have saved',
      ).argParser(parseBudget),
    )
    .addOption(
      new Option(
        '--since <day>',
        'only sessions started on or after this day (YYYYMMDD or YYYY-MM-DD)',
      ).argParser(parseDayOption),
    )
    .addOption(
      new Option(
        '--until <day>',
        'only sessions started on or before this day (YYYYMMDD or YYYY-MM-DD)',
      ).argParser(parseDayOption),
    )
    .addOption(
      new Option(
        '--timezone <zone>',
        'the time zone of --since and --until (default: the machine’s, TZ)',
      ).argParser(parseTimeZone),
    )
    .option(
      '--project <project>',
      'only the sessions of one project: the folder its transcripts are in (as ccusage names it), its path or its last folder',
    )
    .action(async (paths: string[], options: ScanOptions) => {
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
        if (missing(root))
          throw new CliError(`${paths[i] ?? root}: no such file or folder`, EXIT_CODES.usage);
      }
      let detector: Awaited<ReturnType<typeof readHookConfig>>['detector'];
      let prices: Awaited<ReturnType<typeof readHookConfig>>['prices'];
      try {
        ({ detector, prices } = await readHookConfig(io.cwd));
        new StepLoopDetector(detector); // the options are checked once, before any file is read
      } catch (error) {
        throw new CliError(error instanceof Error ? error.message : String(error), EXIT_CODES.usage);
      }
      const progress = io.stderrIsTTY === true;
      if (options.budget !== undefined && options.price !== undefined)
        throw new CliError('--budget needs the per-model prices: give it without --price', EXIT_CODES.usage);
      // one price for every model (--price) prices the waste at the end; else each reply from its model
      const pricing =
        options.price === undefined
          ? { prices, ...(options.budget === undefined ? {} : { budgetUsd: options.budget }) }
          : undefined;
      const scanned = await scanPaths(
        roots,
        detector,
        {
          onProblem: ({ file, problem }) =>
            io.stderr(`${progress ? '\r' : ''}loopguard scan: ${file}: ${problem}\n`),
          onProgress: (done, total) => {
            if (progress && total >= PROGRESS_FROM) io.stderr(progressLine(done, total));
          },
        },
        pricing,
      );
      const sessions = scanned.sessions.filter(sessionFilter(filter));
      const report = scanReport(
        sessions,
        scanned.files,
        scanned.problems.length,
        options.price,
        options.budget,
      );
      if (options.html !== undefined) {
        const file = resolve(io.cwd, options.html);
        // loaded only for --html: the page's assets come from the server package (~0.2 s to load)
        const { writeHtmlReport } = await import('../scan/htmlReport.js');
        try {
          await writeHtmlReport(file, report);
        } catch (error) {
          const code = (error as NodeJS.ErrnoException).code ?? String(error);
          throw new CliError(`--html: cannot write ${file} (${code})`, EXIT_CODES.usage);
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
          `${renderTerminal(report, options.price)}${hint === undefined ? '' : `\n${hint}\n`}${wrote === '' ? '' : `\n${wrote}\n`}`,
        );
      }
    });
}
