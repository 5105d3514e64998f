// Hook calls on hostile events up to the 64 MiB limit (issue 32, item 4): a huge tool_name, a
// tool_input of many keys, of deep nesting, of many small objects, a huge command, a result of many
// objects. Each kind is sent as a `loopguard hook claude` process (wall time and maxRSS of the
// process), against the floor of a bare node process that reads and `JSON.parse`s the same event,
// in the same run; then CALLS such events in one session through the resident path
// (answerHookEvent in one process): the slowest call, the 10th and the last call's time, the peak
// RSS, and the stored session state's size after the 10th and the last call.
// Run: pnpm run build && node scripts/bench-hook-bounds.mjs [MB=60] [CALLS=1000] [SESSION_MB=MB] [SKIP_PROCESSES]
// (SESSION_MB: the size of the session's events; SKIP_PROCESSES=1: the session only)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { writeProcessProbes } from './bench/processProbes.mjs';

const require = createRequire(new URL('../packages/sqlite/package.json', import.meta.url));
const Database = require('better-sqlite3');
const MB = Number(process.argv[2] ?? 60);
const CALLS = Number(process.argv[3] ?? 1000);
const SESSION_MB = Number(process.argv[4] ?? MB);
const SKIP_PROCESSES = process.argv[5] === '1';
let SIZE = MB * 1024 * 1024;
let MEMO = true;
const dist = fileURLToPath(new URL('../packages/cli/dist/', import.meta.url));
const { answerHookEvent } = await import(pathToFileURL(join(dist, 'hook/runHook.js')).href);
const work = mkdtempSync(join(os.tmpdir(), 'loopguard-bench-bounds-'));
const { rss, floor } = writeProcessProbes(work);

/** Fills `SIZE` characters with `unit` repeated, between `open` and `close`. */
const fill = (unit, open = '', close = '') =>
  open + unit.repeat(Math.floor((SIZE - open.length - close.length) / unit.length)) + close;
const envelope = (n, fields) =>
  `{"session_id":"bounds","cwd":${JSON.stringify(work)},"hook_event_name":"PostToolUse",${fields},"tool_response":{"stdout":"run ${n}","stderr":""}}`;
/** Each kind's bulk is built once; the call's number goes in front of it, so that each call differs. */
const once = (make) => {
  let bulk;
  let size;
  return () => {
    if (!MEMO) return make(); // the session holds one event at a time, as a resident process does
    if (size !== SIZE) [bulk, size] = [make(), SIZE]; // built again (and the old one let go) when the size changes
    return bulk;
  };
};
const keys = once(() => Array.from({ length: Math.floor(SIZE / 12) }, (_, i) => `"k${i}":0`).join(','));
const deep = once(() => Math.floor(SIZE / 2));
const xs = once(() => fill('x').slice(20));
const ys = once(() => fill('y').slice(40));
const objects = once(() => fill('{},'));
const KINDS = {
  'tool_name of MB': (n) => envelope(n, `"tool_name":"${n}${xs()}","tool_input":{}`),
  'tool_input of many keys': (n) => envelope(n, `"tool_name":"Edit","tool_input":{"n":${n},${keys()}}`),
  'tool_input nested deep': (n) =>
    envelope(n, `"tool_name":"Edit","tool_input":[${n},${'['.repeat(deep())}${']'.repeat(deep())}]`),
  'tool_input of small objects': (n) => envelope(n, `"tool_name":"Edit","tool_input":[${n},${objects()}{}]`),
  'Bash command of MB': (n) => envelope(n, `"tool_name":"Bash","tool_input":{"command":"echo ${n} ${ys()}"}`),
};

const spawn = (args, input) => {
  const start = process.hrtime.bigint();
  const run = spawnSync(process.execPath, ['--require', rss, ...args], {
    cwd: work,
    input,
    encoding: 'utf8',
    maxBuffer: 1 << 20,
  });
  if (run.status !== 0) throw new Error(`exit ${run.status}: ${run.stderr}`);
  return {
    ms: Number(process.hrtime.bigint() - start) / 1e6,
    rssMB: Number(/maxRSS (\d+)/.exec(run.stderr)?.[1]) / 1024,
  };
};

console.log(
  `machine: ${os.cpus().length} × ${os.cpus()[0]?.model}, node ${process.version}; events of ${MB} MB\n`,
);
console.log('## One hook process per event\n');
console.log('| event | hook ms | hook peak RSS MB | floor (read + JSON.parse) ms | floor peak RSS MB |');
console.log('| --- | --- | --- | --- | --- |');
for (const [name, make] of SKIP_PROCESSES ? [] : Object.entries(KINDS)) {
  const input = make(0);
  const hook = spawn([join(dist, 'bin.js'), 'hook', 'claude'], input);
  const bare = spawn([floor], input);
  console.log(
    `| ${name} | ${hook.ms.toFixed(0)} | ${hook.rssMB.toFixed(0)} | ${bare.ms.toFixed(0)} | ${bare.rssMB.toFixed(0)} |`,
  );
}

const stateSize = () => {
  const db = new Database(join(work, '.loopguard', 'state.db'), { readonly: true });
  const row = db
    .prepare('SELECT length(snapshot) + length(last_results) AS size, steps FROM hook_sessions')
    .get();
  db.close();
  return row;
};
SIZE = SESSION_MB * 1024 * 1024;
MEMO = false;
console.log(
  `\n## ${CALLS} calls of one session in one process (the resident path), events of ${SESSION_MB} MB, the kinds in turn\n`,
);
const kinds = Object.values(KINDS);
const times = [];
let peak = 0;
let state10;
for (let n = 0; n < CALLS; n++) {
  const text = kinds[n % kinds.length](n);
  const start = process.hrtime.bigint();
  await answerHookEvent('claude', text, { env: {}, cwd: work });
  times.push(Number(process.hrtime.bigint() - start) / 1e6);
  peak = Math.max(peak, process.memoryUsage().rss);
  if (n === 9) state10 = stateSize();
}
const last = stateSize();
console.log(
  '| calls | slowest call ms | 10th call ms | last call ms | RSS after a call, max MB | process peak RSS MB | state after 10 calls (chars, steps) | state after the last (chars, steps) |',
);
console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
console.log(
  `| ${CALLS} | ${Math.max(...times).toFixed(0)} | ${times[9]?.toFixed(0)} | ${times.at(-1)?.toFixed(0)} | ${(peak / 1e6).toFixed(0)} | ${SKIP_PROCESSES ? ((process.resourceUsage().maxRSS * 1024) / 1e6).toFixed(0) : '(with the processes’ events)'} | ${state10?.size}, ${state10?.steps} | ${last?.size}, ${last?.steps} |`,
);
const log = join(work, '.loopguard', 'hook.log');
try {
  console.log(`\nhook.log: ${readFileSync(log, 'utf8').split('\n').length - 1} lines`);
} catch {
  console.log('\nhook.log: empty');
}
rmSync(work, { recursive: true, force: true });
