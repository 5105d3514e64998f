// What the spend guard adds to a Claude Code hook call after a tool call (`PostToolUse`, node
// start-up included): the same project and session without a budget, with a token budget (the
// transcript's new replies are read and counted) and with a dollar budget (the pricing library is
// loaded too), calls interleaved in the same run; each call finds one new reply in the transcript.
// Run: pnpm run build && node scripts/bench-spend.mjs [calls per variant]
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const CALLS = Number(process.argv[2] ?? 20);
const bin = fileURLToPath(new URL('../packages/cli/dist/bin.js', import.meta.url));
const work = mkdtempSync(join(os.tmpdir(), 'loopguard-bench-spend-'));

const VARIANTS = {
  'no budget': '',
  'token budget': 'spend:\n  session:\n    maxTokens: 1000000000\n',
  'dollar budget': 'spend:\n  session:\n    maxCostUsd: 1000000\n',
};

/** A project per variant, with a transcript of 200 replies already read. */
function project(config) {
  const dir = mkdtempSync(join(work, 'p-'));
  writeFileSync(join(dir, 'loopguard.config.yaml'), config || 'hook:\n  enabled: true\n');
  const transcript = join(dir, 'transcript.jsonl');
  writeFileSync(transcript, '');
  return { dir, transcript, replies: 0 };
}

function reply(p) {
  p.replies++;
  const message = {
    id: `msg_${p.replies}`,
    model: 'claude-sonnet-4-5',
    role: 'assistant',
    usage: { input_tokens: 1200, output_tokens: 80, cache_read_input_tokens: 30000 },
    content: [{ type: 'text', text: `step ${p.replies}` }],
  };
  appendFileSync(
    p.transcript,
    `${JSON.stringify({ type: 'assistant', timestamp: new Date().toISOString(), message })}\n`,
  );
}

function call(p, n) {
  const event = {
    session_id: 'bench',
    transcript_path: p.transcript,
    cwd: p.dir,
    hook_event_name: 'PostToolUse',
    tool_name: 'Bash',
    tool_input: { command: `echo ${n} > f${n}.txt` },
    tool_response: { stdout: `wrote ${n}`, stderr: '', interrupted: false },
  };
  const start = process.hrtime.bigint();
  const result = spawnSync(process.execPath, [bin, 'hook', 'claude'], {
    input: JSON.stringify(event),
    env: { ...process.env, CLAUDE_PROJECT_DIR: '' },
  });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (result.status !== 0) throw new Error(`hook failed: ${result.stderr}`);
  return ms;
}

const projects = Object.fromEntries(
  Object.entries(VARIANTS).map(([name, config]) => [name, project(config)]),
);
for (const p of Object.values(projects)) for (let i = 0; i < 200; i++) reply(p);
const times = Object.fromEntries(Object.keys(VARIANTS).map((name) => [name, []]));
for (const p of Object.values(projects)) call(p, 0); // first calls: the database is created
for (let round = 1; round <= CALLS; round++) {
  for (const [name, p] of Object.entries(projects)) {
    reply(p);
    times[name].push(call(p, round));
  }
}
const p50 = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
const base = p50(times['no budget']);
console.log(`${CALLS} calls per variant, node ${process.version}, ${os.cpus().length} cores`);
console.log('| variant | p50 ms | × no budget |\n| --- | ---: | ---: |');
for (const [name, list] of Object.entries(times))
  console.log(`| ${name} | ${p50(list).toFixed(1)} | ${(p50(list) / base).toFixed(2)} |`);
rmSync(work, { recursive: true, force: true });
