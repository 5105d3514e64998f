// Synthetic Claude Code transcripts (the record shapes Claude Code 2.1.330 writes: assistant replies
// with usage, tool results, attachments and api-request records) for the scan benchmark and the
// HTML report's screenshot. The arguments decide the shape; ids are random UUIDs.
import { randomUUID } from 'node:crypto';
import { createWriteStream, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { seededRandom } from '../bench/injectLoops.mjs';

const FILLER = 'x'.repeat(600);

/**
 * A model the pricing library knows (a scan prices each of its replies, as a user's transcripts
 * are priced; a made-up name priced nothing, and the benchmark measured no pricing).
 */
export const SYNTHETIC_MODEL = 'claude-sonnet-4-5-20250929';

/**
 * The lines of one session: `calls` tool calls in `cwd` starting at `start` (ms), replies from
 * `model`; from call `loopAt` on, `loopLength` calls repeat the same failing command (`loopAt` -1:
 * no loop).
 */
export function sessionLines({
  cwd,
  start,
  calls,
  loopAt = -1,
  loopLength = 0,
  loopCommand = 'make watch',
  model = SYNTHETIC_MODEL,
}) {
  const sessionId = randomUUID();
  const lines = [];
  let time = start;
  let parent = null;
  const base = () => ({
    parentUuid: parent,
    isSidechain: false,
    cwd,
    sessionId,
    version: '2.1.330',
    gitBranch: 'main',
  });
  const stamp = () => {
    time += 4000;
    return new Date(time).toISOString();
  };
  const push = (record) => {
    const uuid = randomUUID();
    lines.push(JSON.stringify({ ...base(), ...record, uuid, timestamp: stamp() }));
    parent = uuid;
  };
  push({ type: 'user', message: { role: 'user', content: 'Fix the failing build.' } });
  push({ type: 'attachment', attachment: { type: 'environment', content: FILLER } });
  for (let i = 0; i < calls; i++) {
    const looping = loopAt >= 0 && i >= loopAt && i < loopAt + loopLength;
    const command = looping ? loopCommand : `sed -n ${i * 10},${i * 10 + 40}p src/module${i % 7}.ts`;
    const id = `toolu_${i}`;
    lines.push(
      JSON.stringify({ type: 'api-request', sessionId, id: randomUUID(), params: { filler: FILLER } }),
    );
    push({
      type: 'assistant',
      message: {
        id: `msg_${sessionId.slice(0, 8)}_${i}`,
        type: 'message',
        role: 'assistant',
        model,
        content: [
          { type: 'text', text: looping ? 'Let me run it again.' : `Looking at part ${i} of the module.` },
          { type: 'tool_use', id, name: 'Bash', input: { command, description: 'Run' } },
        ],
        usage: { input_tokens: 1200 + i * 40, cache_read_input_tokens: 20_000, output_tokens: 90 },
      },
    });
    const output = looping
      ? `$ ${loopCommand}\nerror: the target is not ready (exit 2)`
      : `export function part${i}() {\n  return ${i};\n}\n${FILLER.slice(0, 200 + (i % 5) * 50)}`;
    push({
      type: 'user',
      message: {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: id, content: output, is_error: looping }],
      },
      toolUseResult: { stdout: output, stderr: '' },
    });
  }
  push({
    type: 'assistant',
    message: { id: `msg_${sessionId}_end`, role: 'assistant', content: [{ type: 'text', text: 'Done.' }] },
  });
  return { sessionId, lines };
}

/**
 * Writes synthetic Claude Code sessions into `folder` as a config folder holds them
 * (`projects/<project>/<session>.jsonl`) until they reach `megabytes`: 150-450 calls each, one in
 * five looping, spread over `projects` projects, drawn from `seed`. Returns `{ bytes, sessions }`.
 */
export async function writeSyntheticSessions(folder, { megabytes, projects, seed }) {
  const next = seededRandom(seed);
  let bytes = 0;
  let sessions = 0;
  while (bytes < megabytes * 1024 * 1024) {
    const project = `/home/dev/project-${sessions % projects}`;
    const dir = join(folder, 'projects', project.replaceAll('/', '-'));
    mkdirSync(dir, { recursive: true });
    const loops = next() < 0.2;
    const { sessionId, lines } = sessionLines({
      cwd: project,
      start: Date.parse('2026-10-01T00:00:00Z') + sessions * 3_600_000,
      calls: 150 + Math.floor(next() * 300),
      loopAt: loops ? 40 : -1,
      loopLength: loops ? 10 + Math.floor(next() * 40) : 0,
    });
    const file = join(dir, `${sessionId}.jsonl`);
    const out = createWriteStream(file);
    for (const line of lines) out.write(`${line}\n`);
    await new Promise((done) => out.end(done));
    bytes += statSync(file).size;
    sessions++;
  }
  return { bytes, sessions };
}
