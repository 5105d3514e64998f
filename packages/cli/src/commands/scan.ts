import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { dayFormat, parseDay } from '../scan/days.js';
import type { ScanOptions } from '../scan/runScan.js';
import { scanCacheFile } from '../scan/scanCache.js';
import { startScanWorkers } from '../scan/scanWorkers.js';
import type { CliIo } from '../terminal/cliIo.js';

/** The scan's action bundled in one file (scripts/bundle-hook.mjs); absent, its modules are loaded. */
const BUNDLE = new URL('../bundle/scan.mjs', import.meta.url);

/** `runScan`, from the bundle when it was built: one file loads in ≈ 50 ms, its modules in ≈ 170. */
async function loadRunScan(): Promise<typeof import('../scan/runScan.js')['runScan']> {
  if (existsSync(fileURLToPath(BUNDLE)))
    return ((await import(BUNDLE.href)) as typeof import('../scan/runScan.js')).runScan;
  return (await import('../scan/runScan.js')).runScan;
}

/** Whether the scan reads one file only: the calling thread reads it, and no worker is started. */
function oneFile(paths: readonly string[], cwd: string): boolean {
  try {
    return paths.length === 1 && statSync(resolve(cwd, paths[0] as string)).isFile();
  } catch {
    return false;
  }
}

/** Commander parser of `--price`: a non-negative number (money per million tokens). */
function parsePrice(value: string): number {
  const price = /^\d+(\.\d+)?$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isFinite(price))
    throw new InvalidArgumentError('must be a number ≥ 0 (money per million tokens).');
  return price;
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
 * `loopguard scan [PATH...] [--json] [--html file] [--price n] [--budget usd] [--since day] [--until day] [--project p] [--no-cache]`: runs the step detector over the
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
    .option(
      '--no-cache',
      'read every file: neither read nor write what the last scan remembered (~/.cache/loopguard/scan-cache)',
    )
    .action(async (paths: string[], options: ScanOptions) => {
      // the workers start first and load the detector while this thread loads the rest; with a
      // cache, most files are usually known: they start once the files to read are found, if any
      const cache = options.cache !== false && existsSync(scanCacheFile(io.env) ?? '');
      const workers = oneFile(paths, io.cwd) ? undefined : cache ? startScanWorkers : startScanWorkers();
      try {
        const runScan = await loadRunScan();
        await runScan(paths, options, io, workers);
      } finally {
        if (typeof workers === 'object') workers.close();
      }
    });
}
