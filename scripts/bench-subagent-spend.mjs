// What Claude Code's subagents add to the spend guard of a hook call after a tool call: the call
// reads every transcript of the session that grew (the main one and each subagent's, under
// `<session>/subagents/`). One `PostToolUse` of the main thread, answered in this process as the fast
// path answers it (`answerHookEvent`, database opened per call), in four projects, calls interleaved:
// no subagent; 64 subagent transcripts already read (listed and sized, none read); 64 that each
// gained one reply since the last call (all read); one that gained a reply (the common case).
// Each call also finds one new reply in the main transcript.
// Run: pnpm run build && node scripts/bench-subagent-spend.mjs [calls per variant]
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const CALLS = Number(process.argv[2] ?? 200);
const { answerHookEvent } = await import(
  fileURLToPath(new URL('../packages/cli/dist/hook/runHook.js', import.meta.url))
);
const work = mkdtempSync(join(os.tmpdir(), 'loopguard-bench-subagents-'));

let replyId = 0;
/** One reply as Claude Code writes it (one record; 200 of them make a transcript already read). */
const reply = () =>
  `${JSON.stringify({
    type: 'assistant',
    timestamp: new Date().toISOString(),
    message: {
      id: `msg_${++replyId}`,
      model: 'claude-sonnet-4-5',
      role: 'assistant',
      usage: { input_tokens: 1200, output_tokens: 80, cache_read_input_tokens: 30000 },
      content: [{ type: 'text', text: `step ${replyId}` }],
    },
  })}\n`;

/** A project whose session has `subagents` subagent transcripts of 200 replies; `growing` of them gain a reply before each call. */
function project(subagents, growing) {
  const dir = mkdtempSync(join(work, 'p-'));
  writeFileSync(join(dir, 'loopguard.config.yaml'), 'spend:\n  session:\n    maxTokens: 1000000000000\n');
  const transcript = join(dir, 'session.jsonl');
  writeFileSync(transcript, Array.from({ length: 200 }, reply).join(''));
  const folder = join(dir, 'session', 'subagents');
  mkdirSync(folder, { recursive: true });
  const files = Array.from({ length: subagents }, (_, i) => join(folder, `agent-a${i}.jsonl`));
  for (const file of files) writeFileSync(file, Array.from({ length: 200 }, reply).join(''));
  return { dir, transcript, grown: files.slice(0, growing), n: 0 };
}

async function call(p) {
  appendFileSync(p.transcript, reply());
  for (const file of p.grown) appendFileSync(file, reply());
  p.n++;
  const event = {
    session_id: 'bench',
    transcript_path: p.transcript,
    cwd: p.dir,
    hook_event_name: 'PostToolUse',
    tool_name: 'Bash',
    tool_input: { command: `echo ${p.n} > f${p.n}.txt` },
    tool_response: { stdout: `wrote ${p.n}`, stderr: '', interrupted: false },
  };
  const start = process.hrtime.bigint();
  const out = await answerHookEvent('claude', JSON.stringify(event), { env: {}, cwd: p.dir });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (out !== '') throw new Error(`unexpected reply: ${out}`);
  return ms;
}

const variants = {
  'no subagent': project(0, 0),
  '64 subagents, none grew': project(64, 0),
  '64 subagents, each grew a reply': project(64, 64),
  '1 subagent grew a reply': project(1, 1),
};
const times = Object.fromEntries(Object.keys(variants).map((name) => [name, []]));
// the first call of each reads every transcript from its start: not measured
for (const p of Object.values(variants)) await call(p);
for (let i = 0; i < CALLS; i++)
  for (const [name, p] of Object.entries(variants)) times[name].push(await call(p));

const p50 = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
const base = p50(times['no subagent']);
console.log(
  `node ${process.version}, ${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(1)}, ${CALLS} calls each`,
);
console.log('| variant | p50 ms | × no subagent |\n| --- | ---: | ---: |');
for (const [name, list] of Object.entries(times))
  console.log(`| ${name} | ${p50(list).toFixed(2)} | ${(p50(list) / base).toFixed(2)} |`);
rmSync(work, { recursive: true, force: true });
