import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../src/main.js';
import type { ScanReport } from '../src/scan/scanReport.js';
import { EXIT_CODES } from '../src/terminal/exitCodes.js';
import {
  claudeSession,
  codexSession,
  fixtureName,
  geminiSession,
  type Script,
  writeFixture,
} from './agentTranscripts.js';
import { bufferedIo } from './helpers.js';

// The real CLIs (pinned, offline against the scripted model APIs) write their own transcripts in a
// fresh home; `loopguard scan` with no path finds them there. With LOOPGUARD_WRITE_FIXTURES=1 the
// transcripts become the repository's fixtures (test/fixtures/scan), which scan.test.ts reads.

const write = process.env.LOOPGUARD_WRITE_FIXTURES === '1';

const LOOP_CALLS = 10;
const loopingShell =
  (tool: string): Script =>
  (turn) =>
    turn < LOOP_CALLS
      ? { tool, args: { command: 'cat missing.txt' } }
      : { text: 'missing.txt does not exist; I stop here.' };
const progressingShell =
  (tool: string): Script =>
  (turn) => {
    const commands = ['echo one > one.txt', 'echo two > two.txt', 'ls', 'cat one.txt two.txt'];
    const command = commands[turn];
    return command === undefined ? { text: 'Both files are written.' } : { tool, args: { command } };
  };
// Gemini CLI ends a turn after 5 identical calls in a row: an alternation goes on past loopguard's stop.
const loopingGemini: Script = (turn) =>
  turn >= LOOP_CALLS
    ? { text: 'missing.txt does not exist; I stop here.' }
    : turn % 2 === 0
      ? { tool: 'read_file', args: { file_path: 'missing.txt' } }
      : { tool: 'run_shell_command', args: { command: 'ls missing.txt' } };

/** The environment that points `loopguard scan` at a CLI's home. */
const homeEnv = {
  claude: (home: string) => ({ HOME: home }),
  codex: (home: string) => ({ HOME: join(home, 'nobody'), CODEX_HOME: home }),
  gemini: (home: string) => ({ HOME: home }),
};

const sessions = {
  claude: { run: claudeSession, looping: loopingShell('Bash'), progressing: progressingShell('Bash') },
  codex: { run: codexSession, looping: loopingShell('shell'), progressing: progressingShell('shell') },
  gemini: { run: geminiSession, looping: loopingGemini, progressing: progressingShell('run_shell_command') },
} as const;

describe.each(Object.keys(sessions) as Array<keyof typeof sessions>)(
  'transcripts of the real %s CLI (offline)',
  (agent) => {
    it.each(['looping', 'progressing'] as const)(
      'writes a %s session that scan finds in its default place',
      async (name) => {
        const session = sessions[agent];
        const { home, files } = await session.run(session[name]);
        expect(files.length).toBeGreaterThan(0);
        if (write) writeFixture(files[files.length - 1] as string, fixtureName(agent, name));
        const cwd = mkdtempSync(join(tmpdir(), 'loopguard-scan-cwd-'));
        const io = bufferedIo({ cwd, env: homeEnv[agent](home) });
        expect(await runCli(['scan', '--json'], io), io.err()).toBe(EXIT_CODES.ok);
        const report = JSON.parse(io.out()) as ScanReport;
        expect(report.sessions.map((s) => s.agent)).toEqual([agent]);
        const loops = report.sessions[0]?.loops ?? [];
        if (name === 'progressing') {
          expect(loops).toEqual([]);
        } else {
          const stopped = loops.filter((loop) => loop.stopStep !== null);
          expect(stopped).toHaveLength(1);
          expect(stopped[0]?.wastedToolCalls).toBeGreaterThan(0);
          expect(stopped[0]?.wastedTokens).toBeGreaterThan(0);
          expect(stopped[0]?.evidence).toContain('missing.txt');
        }
      },
      600_000,
    );
  },
);
