import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderTerminal } from '../../scan/renderTerminal.js';
import { scanPaths } from '../../scan/scanPaths.js';
import { scanReport } from '../../scan/scanReport.js';
import type { DemoScenario } from '../DemoContext.js';

const SESSION = '7d3c0a52-9a41-4f0e-8a5e-3f1b2c9d4e61';
const CWD = '/home/dev/shop';

/** One Claude Code session as its transcript records: a few useful calls, then `npm test` failing the same way. */
function transcript(start: number): string {
  const records: unknown[] = [];
  let time = start;
  const record = (type: 'user' | 'assistant', message: Record<string, unknown>) => {
    time += 5_000;
    records.push({
      type,
      message,
      sessionId: SESSION,
      cwd: CWD,
      isSidechain: false,
      timestamp: new Date(time).toISOString(),
    });
  };
  const call = (i: number, command: string, output: string, error: boolean) => {
    record('assistant', {
      id: `msg_${i}`,
      role: 'assistant',
      content: [{ type: 'tool_use', id: `toolu_${i}`, name: 'Bash', input: { command } }],
      usage: { input_tokens: 2_000 + i * 300, cache_read_input_tokens: 12_000, output_tokens: 60 },
    });
    record('user', {
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: `toolu_${i}`, content: output, is_error: error }],
    });
  };
  record('user', { role: 'user', content: 'Make the test suite pass.' });
  call(0, 'ls', 'package.json\nsrc\ntest', false);
  call(1, 'cat package.json', '{ "scripts": { "test": "node --test" } }', false);
  for (let i = 2; i < 10; i++)
    call(i, 'npm test', "Error: Cannot find module './config'\n    at test/app.test.js:1", true);
  call(10, 'ls src', 'app.js\nconfig.example.js', false);
  record('assistant', {
    id: 'msg_11',
    role: 'assistant',
    content: [{ type: 'text', text: 'src/config.js is missing.' }],
  });
  return `${records.map((r) => JSON.stringify(r)).join('\n')}\n`;
}

/** `loopguard scan` on a transcript the demo writes: the loop, where loopguard would have stopped it, and what it cost after. */
export const scanTranscript: DemoScenario = {
  title: 'Scan: what a loop in a Claude Code transcript cost after the point loopguard would have stopped it',
  tasks: [],
  async run(ctx) {
    const dir = join(ctx.workDir, 'transcripts');
    mkdirSync(dir);
    writeFileSync(join(dir, `${SESSION}.jsonl`), transcript(ctx.clock.now()));
    ctx.print(
      `   A Claude Code session in ${CWD} runs \`npm test\` 8 times with the same error; its transcript: ${dir}`,
    );
    const scanned = await scanPaths([dir], {});
    const report = scanReport(scanned.sessions, scanned.files, scanned.problems.length, 3);
    // as `scan` prints it on this terminal, less the narration's indent (qa54)
    const columns = ctx.columns === undefined ? undefined : ctx.columns - 3;
    for (const line of renderTerminal(report, 3, undefined, columns).trimEnd().split('\n'))
      ctx.print(`   ${line}`.trimEnd());
    ctx.print(`   Try it on your own sessions: loopguard scan (or: loopguard scan ${dir} --html loops.html)`);
    ctx.print(
      '   Pick days and a project as in ccusage: loopguard scan --since 20261101 --until 20261130 --project my-app',
    );
  },
};
