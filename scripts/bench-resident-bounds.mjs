// The resident process (`loopguard resident serve`, Claude Code's http hooks) over a session of
// hostile events up to 64 MiB (issue 32, item 4): CALLS events of MB MB, the kinds of
// bench-hook-bounds.mjs in turn, posted one at a time as Claude Code posts them; each call's time
// and the resident's peak RSS (maxRSS, read from /proc while it runs). The events are built in
// this process, so that the resident's memory is its own.
// Run: pnpm run build && node scripts/bench-resident-bounds.mjs [MB=60] [CALLS=100]
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const MB = Number(process.argv[2] ?? 60);
const CALLS = Number(process.argv[3] ?? 100);
const SIZE = MB * 1024 * 1024;
const bin = fileURLToPath(new URL('../packages/cli/dist/bin.js', import.meta.url));
const home = mkdtempSync(join(os.tmpdir(), 'loopguard-bench-resident-'));
const project = join(home, 'project');
await import('node:fs').then((fs) => fs.mkdirSync(project));
const { ensureResidentConfig } = await import(
  new URL('../packages/cli/dist/resident/residentConfig.js', import.meta.url).href
);
const config = await ensureResidentConfig(home);
const server = spawn(process.execPath, [bin, 'resident', 'serve'], {
  cwd: home,
  env: { ...process.env, HOME: home },
  stdio: 'ignore',
});
const peakRss = () =>
  Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${server.pid}/status`, 'utf8'))?.[1]) / 1024;
const request = (path, body) =>
  fetch(`http://127.0.0.1:${config.port}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${config.token}`, 'content-type': 'application/json' },
    body,
    signal: AbortSignal.timeout(60_000),
  });
for (let n = 0; ; n++) {
  try {
    await request(
      '/sessions',
      JSON.stringify({ sessionId: 'bounds', projectDir: project, pid: process.pid, enabled: true }),
    );
    break;
  } catch (error) {
    if (n > 100) throw error;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
const envelope = (n, fields) =>
  `{"session_id":"bounds","cwd":${JSON.stringify(project)},"hook_event_name":"PostToolUse",${fields},"tool_response":{"stdout":"run ${n}","stderr":""}}`;
const KINDS = [
  (n) =>
    envelope(
      n,
      `"tool_name":"Edit","tool_input":{"n":${n},${Array.from({ length: Math.floor(SIZE / 12) }, (_, i) => `"k${i}":0`).join(',')}}`,
    ),
  (n) => envelope(n, `"tool_name":"Edit","tool_input":[${n},${'['.repeat(SIZE / 2)}${']'.repeat(SIZE / 2)}]`),
  (n) => envelope(n, `"tool_name":"Edit","tool_input":[${n},${'{},'.repeat(SIZE / 3)}{}]`),
  (n) => envelope(n, `"tool_name":"Bash","tool_input":{"command":"echo ${n} ${'y'.repeat(SIZE)}"}`),
  (n) => envelope(n, `"tool_name":"${n}${'x'.repeat(SIZE)}","tool_input":{}`),
];
const times = [];
for (let n = 0; n < CALLS; n++) {
  const body = KINDS[n % KINDS.length](n);
  const start = performance.now();
  await (await request('/hook/claude', body)).text();
  times.push(performance.now() - start);
}
console.log(
  `machine: ${os.cpus().length} × ${os.cpus()[0]?.model}, node ${process.version}, load ${os.loadavg()[0].toFixed(1)}\n`,
);
console.log('| calls | event MB | slowest call ms | 10th call ms | last call ms | resident peak RSS MB |');
console.log('| --- | --- | --- | --- | --- | --- |');
console.log(
  `| ${CALLS} | ${MB} | ${Math.max(...times).toFixed(0)} | ${times[9]?.toFixed(0)} | ${times.at(-1)?.toFixed(0)} | ${peakRss().toFixed(0)} |`,
);
let log = '';
try {
  log = readFileSync(join(project, '.loopguard', 'hook.log'), 'utf8');
} catch {}
console.log(
  `\nhook.log: ${log.split('\n').length - 1} lines${log === '' ? '' : `, the first: ${log.split('\n')[0]?.slice(0, 160)}`}`,
);
server.kill();
rmSync(home, { recursive: true, force: true });
