// One hook call whose tool result is 50 MB (issue 26, item 6): its wall time and the hook process's
// peak memory (maxRSS), against the floor of reading and parsing the same event in a bare node
// process, in the same run. The hook cuts the result to its head, tail and a fingerprint before the
// detector sees it (boundedResult.ts), and refuses events over 64 MiB unparsed.
// Then the fast path (issue 30): eight such events sent at once to `loopguard mcp` as Claude Code's
// mcp_tool hooks send them; the time of each reply from the moment all were sent, and the server's
// peak memory.
// Run: pnpm run build && node scripts/bench-hook-large.mjs [MB] [calls]
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeProcessProbes } from './bench/processProbes.mjs';

const MB = Number(process.argv[2] ?? 50);
const CALLS = Number(process.argv[3] ?? 5);
const bin = fileURLToPath(new URL('../packages/cli/dist/bin.js', import.meta.url));
const work = mkdtempSync(join(os.tmpdir(), 'loopguard-bench-large-'));
const { rss, floor } = writeProcessProbes(work);

const line = 'a line of a very long build log, with a counter: ';
const output = (n) => {
  const lines = [];
  let size = 0;
  for (let i = 0; size < MB * 1024 * 1024; i++) {
    const text = `${line}${i % 1000}\n`;
    lines.push(text);
    size += text.length;
  }
  return `${lines.join('')}run ${n}`;
};
const event = (n) =>
  JSON.stringify({
    session_id: 'large',
    cwd: work,
    hook_event_name: 'PostToolUse',
    tool_name: 'Bash',
    tool_input: { command: 'make 2>&1' },
    tool_response: { stdout: output(n), stderr: '', interrupted: false },
  });

const variants = {
  'read and JSON.parse only (floor)': [floor],
  'loopguard hook claude': [bin, 'hook', 'claude'],
};
const results = Object.fromEntries(Object.keys(variants).map((name) => [name, { ms: [], rss: [] }]));
for (let n = 0; n < CALLS; n++) {
  const input = event(n);
  for (const [name, args] of Object.entries(variants)) {
    const start = process.hrtime.bigint();
    const run = spawnSync(process.execPath, ['--require', rss, ...args], {
      cwd: work,
      input,
      encoding: 'utf8',
      maxBuffer: 1024 * 1024,
    });
    results[name].ms.push(Number(process.hrtime.bigint() - start) / 1e6);
    results[name].rss.push(Number(/maxRSS (\d+)/.exec(run.stderr)?.[1] ?? Number.NaN) / 1024);
    if (run.status !== 0) throw new Error(`${name}: exit ${run.status}: ${run.stderr}`);
  }
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
console.log(
  `machine: ${os.cpus().length} × ${os.cpus()[0]?.model}, node ${process.version}, load ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(
      ' ',
    )}; a ${MB} MB tool result (${(event(0).length / 1e6).toFixed(1)} MB event), ${CALLS} calls each, interleaved\n`,
);
console.log('| variant | median ms | max ms | median peak RSS MB |');
console.log('| --- | --- | --- | --- |');
for (const [name, { ms, rss: mem }] of Object.entries(results))
  console.log(
    `| ${name} | ${median(ms).toFixed(0)} | ${Math.max(...ms).toFixed(0)} | ${median(mem).toFixed(0)} |`,
  );

// Eight events at once through the MCP server.
const server = spawn(process.execPath, ['--require', rss, bin, 'mcp'], {
  cwd: work,
  stdio: ['pipe', 'pipe', 'pipe'],
  env: { ...process.env, CLAUDE_PROJECT_DIR: work },
});
let serverErr = '';
server.stderr.on('data', (d) => {
  serverErr += d;
});
const replied = [];
let pending = '';
const allReplied = new Promise((resolve) => {
  server.stdout.on('data', (chunk) => {
    pending += chunk;
    for (let end = pending.indexOf('\n'); end !== -1; end = pending.indexOf('\n')) {
      const message = JSON.parse(pending.slice(0, end));
      pending = pending.slice(end + 1);
      if (message.result?.isError) throw new Error(`the server answered ${JSON.stringify(message)}`);
      replied.push(performance.now());
      if (replied.length === 8) resolve();
    }
  });
});
const messages = Array.from({ length: 8 }, (_, n) => {
  const parsed = JSON.parse(event(100 + n));
  const args = Object.fromEntries(
    Object.entries({ ...parsed, session_id: `large-${n}` }).map(([key, value]) => [
      key,
      typeof value === 'string' ? value : JSON.stringify(value),
    ]),
  );
  return `${JSON.stringify({ jsonrpc: '2.0', id: n, method: 'tools/call', params: { name: 'hook', arguments: args } })}\n`;
});
const sent = performance.now();
for (const message of messages) server.stdin.write(message);
await allReplied;
server.stdin.end();
await new Promise((resolve) => server.once('exit', resolve));
const serverRss = Number(/maxRSS (\d+)/.exec(serverErr)?.[1] ?? Number.NaN) / 1024;
console.log(
  `\nfast path: eight ${MB} MB events sent at once to loopguard mcp (${(messages[0].length / 1e6).toFixed(1)} MB messages): replies after ${replied.map((t) => ((t - sent) / 1000).toFixed(1)).join(', ')} s; server peak RSS ${serverRss.toFixed(0)} MB`,
);
rmSync(work, { recursive: true, force: true });
