import {
  closeSync,
  constants,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import {
  plainHookCommand,
  SNAPSHOT_UNUSABLE_EXIT,
  snapshotHookCommand,
  usableHookSnapshot,
} from '../src/hook/snapshotCommand.js';
import { claudeEvent, claudeFailingCall, moduleRepliesToFailingCalls, tempProject } from './hookHelpers.js';
import { bin, loopguard } from './runHelpers.js';

const blob = fileURLToPath(new URL('../dist/bundle/hook.blob', import.meta.url));
const scratch = tempProject();
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Runs a hook command as the CLIs do (`sh -c`), with `event` on stdin. */
async function shellHook(
  command: string,
  cwd: string,
  event: unknown,
  env: Record<string, string> = {},
  shell = '/bin/sh',
) {
  const result = await execa(shell, ['-c', command], {
    cwd,
    reject: false,
    input: JSON.stringify(event),
    env: { CLAUDE_PROJECT_DIR: '', GEMINI_PROJECT_DIR: '', LOOPGUARD_HOOK: '', ...env },
  });
  return { code: result.exitCode, stdout: String(result.stdout), stderr: String(result.stderr) };
}

/** Four failing Bash calls of one session through `command`, and the same through the modules: both replies. */
async function repliesOf(command: string, env: Record<string, string> = {}) {
  const project = tempProject();
  const replies: string[] = [];
  const errors: string[] = [];
  for (const call of [1, 2, 3, 4].map((n) => claudeFailingCall(project, 's1', n))) {
    for (const event of [call.pre, call.post]) {
      const { code, stdout, stderr } = await shellHook(command, project, event, env);
      expect(code).toBe(0);
      replies.push(stdout);
      errors.push(stderr);
    }
  }
  return { replies, expected: await moduleRepliesToFailingCalls(project), errors };
}

describe("the hook's startup snapshot (dist/bundle/hook.blob, built with the bundle)", () => {
  it('init writes a command that starts from it, and that command answers as the modules do', async () => {
    const dir = tempProject();
    const init = await loopguard(dir, ['init', 'claude', '--command-hooks']);
    expect(init.code, init.stderr).toBe(0);
    const settings = JSON.parse(readFileSync(join(dir, '.claude', 'settings.json'), 'utf8'));
    const command: string = settings.hooks.PreToolUse[0].hooks[0].command;
    expect(command).toBe(snapshotHookCommand([process.execPath, bin], blob, 'claude'));
    // V8 flags in the user's NODE_OPTIONS would make Node refuse the snapshot: it starts without them.
    const { replies, expected, errors } = await repliesOf(command, {
      NODE_OPTIONS: '--max-old-space-size=300',
    });
    expect(replies.some((reply) => reply.includes('additionalContext'))).toBe(true);
    expect(replies).toEqual(expected);
    expect(errors.join('')).toBe('');
  });

  it('a blob this node cannot load (gone, or not a snapshot): the command starts without it and answers the same', async () => {
    const corrupt = join(scratch, 'corrupt.blob');
    writeFileSync(corrupt, 'not a snapshot');
    for (const unusable of [join(scratch, 'missing.blob'), corrupt]) {
      const { replies, expected, errors } = await repliesOf(
        snapshotHookCommand([process.execPath, bin], unusable, 'claude'),
      );
      expect(replies).toEqual(expected);
      expect(errors.join('')).not.toBe(''); // Node said why it started without it
    }
  });

  /**
   * Runs a failing call through each hook command `init` may write (from the snapshot, its second
   * start, without a blob) in `env`: each answers and records it (the project's database exists).
   */
  async function expectEachHookCommandRecords(env: Record<string, string>, shell?: string): Promise<void> {
    const argv: [string, string] = [process.execPath, bin];
    for (const command of [
      snapshotHookCommand(argv, blob, 'claude'),
      snapshotHookCommand(argv, join(scratch, 'missing.blob'), 'claude'),
      plainHookCommand(argv, 'claude'),
    ]) {
      const project = tempProject();
      const { code } = await shellHook(
        command,
        project,
        claudeFailingCall(project, 's1', 1).post,
        env,
        shell,
      );
      expect(code).toBe(0);
      expect(existsSync(join(project, '.loopguard', 'state.db')), command).toBe(true);
    }
  }

  it("starts without the user's NODE_EXTRA_CA_CERTS, the hook from the snapshot or without it and the status line: node would read the file at every start", async () => {
    // A FIFO that nobody writes to holds any process that opens it for reading until a writer
    // comes (Node 20 reads the file and builds its certificate store at start whenever the variable
    // is set; neither a hook call nor the status line makes a TLS connection). Every 200 ms the test
    // tries to open it for writing without waiting: that succeeds only while a reader has it open,
    // so it tells that one did (however slow the machine) and lets that reader go on.
    const fifo = join(scratch, 'extra-ca.fifo');
    await execa('mkfifo', [fifo]);
    let waitedForIt = false;
    const writer = setInterval(() => {
      try {
        closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
        waitedForIt = true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENXIO') throw error;
      }
    }, 200);
    const env = { NODE_EXTRA_CA_CERTS: fifo };
    try {
      await expectEachHookCommandRecords(env);
      const project = tempProject();
      // a home of its own: init in the home folder itself is refused (qa64)
      const init = await loopguard(project, ['init', 'claude', '--status-line', '--command-hooks'], {
        HOME: tempProject(),
      });
      expect(init.code, init.stderr).toBe(0);
      const statusLine: string = JSON.parse(readFileSync(join(project, '.claude', 'settings.json'), 'utf8'))
        .statusLine.command;
      const line = await shellHook(statusLine, project, { session_id: 's1', cwd: project }, env);
      expect(line).toMatchObject({ code: 0, stdout: 'loopguard: watching' });
    } finally {
      clearInterval(writer);
    }
    expect(waitedForIt).toBe(false);
  });

  it("redteam68: starts without a settings file's NODE_OPTIONS, from the snapshot or without it: code loaded there would answer for loopguard", async () => {
    // Claude Code and Gemini CLI hand their hooks a settings file's `env`; this one ends node
    // before loopguard's code runs, so a hook that loads it records nothing and answers nothing
    await expectEachHookCommandRecords({ NODE_OPTIONS: '--import=data:text/javascript,process.exit(0)' });
  });

  it("trust71: a settings file's function for node or loopguard, or a PATH with another node first, runs nothing in its place (bash, which imports functions, too)", async () => {
    // node is named by its absolute path in every command init writes: no function, no PATH lookup
    const fake = join(scratch, 'fake-bin');
    mkdirSync(fake, { recursive: true });
    writeFileSync(join(fake, 'node'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    const env = {
      'BASH_FUNC_node%%': '() { exit 0; }',
      'BASH_FUNC_loopguard%%': '() { exit 0; }',
      PATH: `${fake}:${process.env.PATH ?? ''}`,
    };
    await expectEachHookCommandRecords(env, '/bin/sh');
    await expectEachHookCommandRecords(env, 'bash');
  });

  it('reads a YAML configuration and prices a money budget from it (the price library is loaded on use)', async () => {
    const dir = tempProject();
    writeFileSync(join(dir, 'loopguard.config.yaml'), 'spend:\n  session:\n    maxCostUsd: 1\n');
    // claude-sonnet-4-5: $3 per million input tokens, 300,000 of them
    const usage = { input_tokens: 150_000, output_tokens: 0 };
    const replies = ['a', 'b'].map((id) =>
      JSON.stringify({
        type: 'assistant',
        timestamp: new Date().toISOString(),
        message: { id, model: 'claude-sonnet-4-5', role: 'assistant', usage, content: [] },
      }),
    );
    writeFileSync(join(dir, 'transcript.jsonl'), `${replies.join('\n')}\n`);
    const event = claudeEvent(dir, 's1', 'PostToolUse', {
      tool_name: 'Read',
      tool_input: { file_path: 'src/a.ts' },
      tool_response: 'content',
    });
    const { code, stdout, stderr } = await shellHook(
      snapshotHookCommand([process.execPath, bin], blob, 'claude'),
      dir,
      event,
    );
    expect(code).toBe(0);
    expect(stderr).toBe(''); // started from the snapshot
    expect(JSON.parse(stdout).hookSpecificOutput.additionalContext).toContain(
      'you have spent $0.90 of $1.00 on this session (90 %)',
    );
  });

  it('is built from an ASCII bundle: V8 keeps its source at one byte a character, half the heap of two', () => {
    const source = readFileSync(join(blob, '..', 'hook-snapshot.cjs'), 'utf8');
    expect([...source].filter((character) => character > '\u007f')).toEqual([]);
  });

  it("holds no code cache of node's own modules, which a call never requires after its start", async () => {
    // node's blob ends with that cache: a count, then each module's id and code; here a count of zero
    expect(readFileSync(blob).subarray(-8)).toEqual(Buffer.alloc(8));
    // node says what it compiles of its own modules; a call from the blob compiles none
    const dir = mkdtempSync(join(scratch, 'builtins-'));
    writeFileSync(
      join(dir, 'loopguard.config.json'),
      JSON.stringify({ spend: { session: { maxCostUsd: 10 } } }),
    );
    writeFileSync(join(dir, 'transcript.jsonl'), '');
    const { code, stdout, stderr } = await shellHook(
      snapshotHookCommand([process.execPath, bin], blob, 'claude'),
      dir,
      claudeEvent(dir, 's1', 'PostToolUse', {
        tool_name: 'Bash',
        tool_input: { command: 'ls' },
        tool_response: 'a',
      }),
      { NODE_DEBUG_NATIVE: 'CODE_CACHE' },
    );
    expect([code, stdout]).toEqual([0, '']);
    expect(stderr).toContain('snapshot contains 0 code cache');
    expect(stderr).not.toContain('Compiling');
    expect(existsSync(join(dir, '.loopguard', 'hook.log'))).toBe(false);
  });

  it("holds no zod: zod's code is its own file, loaded by a call that validates something", async () => {
    const bundle = join(blob, '..');
    const source = readFileSync(join(bundle, 'hook-snapshot.cjs'), 'utf8');
    expect(source).not.toContain('$ZodType');
    expect(readFileSync(join(bundle, 'zod-subset.cjs'), 'utf8')).toContain('$ZodType');
    // a project whose configuration the call validates: zod is loaded, the option refused by name
    const dir = mkdtempSync(join(scratch, 'zod-'));
    writeFileSync(join(dir, 'loopguard.config.json'), JSON.stringify({ hook: { repeatThreshold: 1 } }));
    const event = claudeEvent(dir, 's1', 'PostToolUse', {
      tool_name: 'Read',
      tool_input: {},
      tool_response: '',
    });
    const { code, stdout, stderr } = await shellHook(
      snapshotHookCommand([process.execPath, bin], blob, 'claude'),
      dir,
      event,
    );
    expect([code, stdout, stderr]).toEqual([0, '', '']);
    expect(readFileSync(join(dir, '.loopguard', 'hook.log'), 'utf8')).toContain('repeatThreshold');
  });

  it('takes a configuration it validated before from its sealed file, and answers by it', async () => {
    const dir = mkdtempSync(join(scratch, 'sealed-'));
    writeFileSync(join(dir, 'loopguard.config.json'), JSON.stringify({ hook: { sameErrorThreshold: 2 } }));
    mkdirSync(join(dir, '.loopguard'));
    const command = snapshotHookCommand([process.execPath, bin], blob, 'claude');
    const first = await shellHook(command, dir, claudeFailingCall(dir, 's1', 1).post);
    expect(first).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(existsSync(join(dir, '.loopguard', 'config.sealed'))).toBe(true);
    // a second session, every call reading the sealed configuration: nudged at its second failure
    const replies: string[] = [];
    for (const n of [1, 2]) {
      const { code, stdout, stderr } = await shellHook(command, dir, claudeFailingCall(dir, 's2', n).post);
      expect([code, stderr]).toEqual([0, '']);
      replies.push(stdout);
    }
    expect(replies[0]).toBe('');
    expect(replies[1]).toContain('additionalContext');
    expect(existsSync(join(dir, '.loopguard', 'hook.log'))).toBe(false);
  });

  it('runs hook calls only: anything else exits so that the command starts without it', async () => {
    const run = (...args: string[]) =>
      execa(process.execPath, ['--snapshot-blob', blob, bin, ...args], { reject: false, stdin: 'ignore' });
    expect((await run('hook', '--snapshot-check')).stdout).toBe('ok');
    for (const args of [['--version'], ['hook'], ['hook', 'claude', 'extra'], []]) {
      expect((await run(...args)).exitCode).toBe(SNAPSHOT_UNUSABLE_EXIT);
    }
  });

  it('init uses it only beside its own bin.js and when this node loads it; --command never', async () => {
    expect(usableHookSnapshot(process.execPath, bin)).toBe(blob);
    // A loopguard command linked elsewhere (install.sh's link) finds the blob beside its target.
    const link = join(scratch, 'loopguard');
    symlinkSync(bin, link);
    expect(usableHookSnapshot(process.execPath, link)).toBe(blob);
    // A bin.js with no blob beside it, or one this node cannot load.
    const other = join(scratch, 'other', 'dist');
    mkdirSync(join(other, 'bundle'), { recursive: true });
    writeFileSync(join(other, 'bin.js'), '');
    expect(usableHookSnapshot(process.execPath, join(other, 'bin.js'))).toBeUndefined();
    writeFileSync(join(other, 'bundle', 'hook.blob'), 'not a snapshot');
    expect(usableHookSnapshot(process.execPath, join(other, 'bin.js'))).toBeUndefined();
    expect(usableHookSnapshot(process.execPath, join(scratch, 'missing.js'))).toBeUndefined();

    const dir = mkdtempSync(join(scratch, 'project-'));
    const init = await loopguard(dir, ['init', 'gemini', '--command', 'loopguard']);
    expect(init.code, init.stderr).toBe(0);
    expect(readFileSync(join(dir, '.gemini', 'settings.json'), 'utf8')).not.toContain('--snapshot-blob');
  });
});
