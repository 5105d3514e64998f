import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { StepLoopDetector } from '@loopguard/core/steps';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { CliError } from '../CliError.js';
import type { CliIo } from '../cliIo.js';
import { EXIT_CODES } from '../exitCodes.js';
import { readHookConfig } from '../hook/hookConfig.js';
import { defaultTranscriptPlaces } from '../scan/findTranscripts.js';
import { writeHtmlReport } from '../scan/htmlReport.js';
import { progressLine } from '../scan/progressBar.js';
import { renderTerminal } from '../scan/renderTerminal.js';
import { scanPaths } from '../scan/scanPaths.js';
import { scanReport } from '../scan/scanReport.js';

interface ScanOptions {
  json?: boolean;
  html?: string;
  price?: number;
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

/**
 * `loopguard scan [PATH...] [--json] [--html file] [--price n]`: runs the step detector over the
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
      new Option('--price <n>', 'money per million tokens, to show the waste as cost').argParser(parsePrice),
    )
    .action(async (paths: string[], options: ScanOptions) => {
      const roots =
        paths.length > 0
          ? paths.map((path) => resolve(io.cwd, path))
          : defaultTranscriptPlaces(io.env, io.cwd);
      for (const [i, root] of roots.entries()) {
        // only a path that is not there is a usage error; one that cannot be looked at (EACCES,
        // ELOOP) is one line from the scan, which goes on with the others
        if (missing(root))
          throw new CliError(`${paths[i] ?? root}: no such file or folder`, EXIT_CODES.usage);
      }
      let detector: Awaited<ReturnType<typeof readHookConfig>>['detector'];
      try {
        detector = (await readHookConfig(io.cwd)).detector;
        new StepLoopDetector(detector); // the options are checked once, before any file is read
      } catch (error) {
        throw new CliError(error instanceof Error ? error.message : String(error), EXIT_CODES.usage);
      }
      const progress = io.stderrIsTTY === true;
      const scanned = await scanPaths(roots, detector, {
        onProblem: ({ file, problem }) =>
          io.stderr(`${progress ? '\r' : ''}loopguard scan: ${file}: ${problem}\n`),
        onProgress: (done, total) => {
          if (progress && total >= PROGRESS_FROM) io.stderr(progressLine(done, total));
        },
      });
      const report = scanReport(scanned.sessions, scanned.files, scanned.problems.length, options.price);
      if (options.html !== undefined) {
        const file = resolve(io.cwd, options.html);
        try {
          await writeHtmlReport(file, report);
        } catch (error) {
          const code = (error as NodeJS.ErrnoException).code ?? String(error);
          throw new CliError(`--html: cannot write ${file} (${code})`, EXIT_CODES.usage);
        }
      }
      io.stdout(
        options.json === true
          ? `${JSON.stringify(report, null, 2)}\n`
          : renderTerminal(report, options.price),
      );
    });
}
