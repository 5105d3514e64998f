import { constants, readFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { loopKindWords } from '@loopguard/core/internal';
import { loadStaticAssets } from '@loopguard/server';
import { dayFormat, localDay } from './days.js';
import { formatMoney } from './money.js';
import { costLines, stoppedByLoopguard } from './renderTerminal.js';
import type { ScanReport } from './scanReport.js';
import { UNGUARDED_HEADING, unguardedSessions } from './unguardedSessions.js';

const PAGE_SCRIPT = new URL('../../assets/scan-report.js', import.meta.url);

const STYLE = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #222; background: #fafafa; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 16px; margin: 24px 0 8px; }
.sub { color: #666; margin-bottom: 16px; }
#totals { display: flex; gap: 12px; flex-wrap: wrap; }
.card { background: #fff; border: 1px solid #ddd; border-radius: 6px; padding: 10px 14px; min-width: 150px; }
.card strong { display: block; font-size: 22px; } .card span { color: #666; font-size: 12px; }
#charts { margin-top: 16px; display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 16px; }
@media (max-width: 760px) { #charts { grid-template-columns: minmax(0, 1fr); } }
.wide { overflow-x: auto; } .wide table { min-width: 960px; }
#charts section { background: #fff; border: 1px solid #ddd; border-radius: 6px; padding: 8px; }
table { border-collapse: collapse; width: 100%; background: #fff; }
th, td { border-bottom: 1px solid #eee; padding: 6px 8px; text-align: left; vertical-align: top; }
th { background: #f0f0f0; font-weight: 600; } td:nth-child(2) { white-space: nowrap; } tr.nudged td { color: #777; }
summary { cursor: pointer; font-family: ui-monospace, monospace; font-size: 12px; }
pre { white-space: pre-wrap; background: #f6f6f6; padding: 8px; font-size: 12px; }
.file { color: #888; font-size: 11px; }
[hidden] { display: none !important; }
`;

/** JSON safe inside a `<script>` element: every `<` escaped (the JSON means the same). */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
}

/** Code safe inside a `<script>` element: no `</script` or `<!--` to end it early. */
function scriptCode(code: string): string {
  return code.replace(/<\/script/gi, '<\\/script').replace(/<!--/g, '<\\!--');
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] ?? c);
}

/**
 * The HTML report: one self-contained page (uPlot, the dashboard's chart library, inlined; the
 * report's looping sessions as JSON) with the totals, the waste over time and per project, and the
 * evidence of every loop. Sessions without loops are left out of the page (the totals count them).
 */
export function renderHtml(report: ScanReport, title = 'loopguard scan', timeZone?: string): string {
  const days = dayFormat(timeZone);
  const assets = loadStaticAssets();
  const uplot = assets.get('/vendor/uPlot.iife.min.js')?.body.toString('utf8') ?? '';
  const uplotCss = assets.get('/vendor/uPlot.min.css')?.body.toString('utf8') ?? '';
  const money = (cost: number | null | undefined) => (typeof cost === 'number' ? formatMoney(cost) : null);
  // costs go in as text, formatted as the terminal formats them (one rounding rule)
  const data = {
    totals: { ...report.totals, costText: money(report.totals.wastedCost) },
    costLines: costLines(report.totals),
    sessions: report.sessions
      .filter((session) => session.loops.length > 0)
      .map((session) => ({
        ...session,
        // its day in the scan's time zone, as the terminal's table and --since say it (qa47)
        day: session.startedAt === null ? null : (localDay(session.startedAt, days) ?? null),
        // a stop of loopguard's marked as the terminal marks it, also one that did not end the
        // session (a Codex model goes on after it: qa66)
        loops: session.loops.map((loop) => ({
          ...loop,
          costText: money(loop.wastedCost),
          byLoopguard: loop.stopCall !== null && stoppedByLoopguard(loop, session),
          // its kind in words, as the terminal's table says it (doors67)
          kindText: loopKindWords(loop.kind),
        })),
      })),
  };
  // where loopguard's record and the transcript tell a session differently, as the terminal says it
  const differing = report.sessions.filter((session) => session.recordDiffers !== undefined);
  const differences =
    differing.length === 0
      ? ''
      : `<h2>Where loopguard's record (what status says) and the transcript differ</h2>\n<ul id="record-differs">${differing
          .map(
            (session) =>
              `<li>${escapeHtml(`${session.agent} ${session.sessionId}: ${session.recordDiffers}.`)}</li>`,
          )
          .join('')}</ul>\n`;
  const unguarded = unguardedSessions(report.sessions);
  const notGuarded =
    unguarded.length === 0
      ? ''
      : `<h2>${UNGUARDED_HEADING}</h2>\n<ul id="unguarded">${unguarded.map((line) => `<li>${escapeHtml(line)}</li>`).join('')}</ul>\n`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${uplotCss}</style>
<style>${STYLE}</style>
</head>
<body>
<h1>What loops cost, read from the transcripts</h1>
<div class="sub">Every session run through loopguard's loop detector as if its hooks had been installed (where they were, their own nudges and stops are shown as such); waste is what was spent after loopguard's stop, up to the loop's end.</div>
<div id="totals"></div>
<div id="cost-lines"></div>
<div id="charts">
<section><h2>Waste over time</h2><div id="chart-time"></div></section>
<section><h2>Waste per project</h2><div id="chart-projects"></div></section>
</div>
<h2>Loops, worst first</h2>
<div class="wide"><table>
<thead><tr id="loops-head"><th>project</th><th>date</th><th>agent</th><th>kind</th><th>nudge / stop / end (tool call)</th><th>ended</th><th>wasted after the stop</th><th>evidence</th></tr></thead>
<tbody id="loops"></tbody>
</table></div>
<p id="no-loops" hidden>No loops found.</p>
${differences}${notGuarded}<script type="application/json" id="scan-data">${scriptJson(data)}</script>
<script>${scriptCode(uplot)}</script>
<script>${scriptCode(readFileSync(PAGE_SCRIPT, 'utf8'))}</script>
</body>
</html>
`;
}

/** An existing `--html` file that is another user's: the report is not written into it. */
export class ForeignReportFileError extends Error {
  constructor(owner: number) {
    super(`it belongs to another user, uid ${owner}`);
    this.name = 'ForeignReportFileError';
  }
}

/**
 * Writes {@link renderHtml}'s page to `file`, made readable by this user only (an existing file of
 * this user's keeps its mode). Never through a symbolic link (`ELOOP`), never into another user's
 * file ({@link ForeignReportFileError}): in a folder others can write (`/tmp`, where the kernel may
 * not protect either), another user can make the name first.
 */
export async function writeHtmlReport(file: string, report: ScanReport, timeZone?: string): Promise<void> {
  const page = renderHtml(report, undefined, timeZone);
  // 0600 when made: it quotes the sessions' commands and results (a key in a command)
  const handle = await open(
    file,
    constants.O_WRONLY | constants.O_CREAT | (constants.O_NOFOLLOW ?? 0),
    0o600,
  );
  try {
    const { uid } = await handle.stat();
    if (uid !== (process.getuid?.() ?? uid)) throw new ForeignReportFileError(uid);
    await handle.truncate(0);
    await handle.writeFile(page);
  } finally {
    await handle.close();
  }
}
