import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CommanderError } from 'commander';
import { describe, expect, it } from 'vitest';
import { runCli } from '../src/main.js';
import { createProgram } from '../src/program.js';
import { EXIT_CODES } from '../src/terminal/exitCodes.js';
import { bufferedIo } from './helpers.js';

const bin = fileURLToPath(new URL('../dist/bin.js', import.meta.url));

describe('loopguard (the command)', () => {
  it('prints its version', async () => {
    const io = bufferedIo();
    expect(await runCli(['--version'], io)).toBe(EXIT_CODES.ok);
    expect(io.out()).toMatch(/^\d+\.\d+\.\d+\n$/);
  });

  it('rejects an unknown command with a usage error and exit code 2', async () => {
    const io = bufferedIo();
    expect(await runCli(['frobnicate'], io)).toBe(EXIT_CODES.usage);
    expect(io.err()).toMatch(/^error: .*(unknown command|too many arguments)/);
    expect(io.err()).not.toMatch(/\n\s+at /);
  });

  it('`help <unknown command>` says so in one line, as an unknown command, not the whole help (qa64)', async () => {
    const io = bufferedIo();
    expect(await runCli(['help', 'bogus'], io)).toBe(EXIT_CODES.usage);
    expect(io.err()).toBe("error: unknown command 'bogus'\n(run loopguard --help for usage)\n");
    expect(io.out()).toBe('');
    const known = bufferedIo();
    expect(await runCli(['help', 'status'], known)).toBe(EXIT_CODES.ok);
    expect(known.out()).toMatch(/^Usage: loopguard status /);
  });

  it('`hook <unknown agent>` through the command tree: the same one line and exit 1 as the hook process (trust51)', async () => {
    const io = bufferedIo();
    expect(await runCli(['hook', 'cursor'], io)).toBe(EXIT_CODES.internalError);
    expect(io.err()).toBe(
      'loopguard: hook: unknown agent "cursor" (expected claude, gemini or codex): this call is not guarded\n',
    );
    expect(io.out()).toBe('');
  });

  it("a command's usage error points at that command's help, in one line and the hint (qa41)", async () => {
    const io = bufferedIo();
    expect(await runCli(['status', '--bogus'], io)).toBe(EXIT_CODES.usage);
    expect(io.err()).toBe("error: unknown option '--bogus'\n(run loopguard status --help for usage)\n");
    const top = bufferedIo();
    expect(await runCli(['--bogus'], top)).toBe(EXIT_CODES.usage);
    expect(top.err()).toBe("error: unknown option '--bogus'\n(run loopguard --help for usage)\n");
  });

  it('a mistyped option or command says "did you mean" on its error line, never on a line of its own (polish66)', async () => {
    const io = bufferedIo();
    expect(await runCli(['status', '--sesion'], io)).toBe(EXIT_CODES.usage);
    expect(io.err()).toBe(
      "error: unknown option '--sesion' (did you mean --session?)\n(run loopguard status --help for usage)\n",
    );
    const command = bufferedIo();
    expect(await runCli(['stauts'], command)).toBe(EXIT_CODES.usage);
    expect(command.err()).toBe(
      "error: unknown command 'stauts' (did you mean status?)\n(run loopguard --help for usage)\n",
    );
  });

  it("every command's usage errors are one line and the hint: a mistyped option, a value left out, an option taken as a value (polish66)", async () => {
    const program = await createProgram(bufferedIo());
    const cases: string[][] = [];
    for (const sub of program.commands) {
      const name = sub.name();
      const positional = sub.registeredArguments
        .filter((a) => a.required)
        .map((a) => (a.name() === 'command' ? 'true' : 'claude'));
      for (const option of sub.options.filter((o) => o.required && o.long !== undefined)) {
        const flag = option.long as string;
        cases.push([name, flag.slice(0, -1), ...positional]); // a typo
        cases.push([name, ...positional, flag]); // the value left out at the end
        cases.push([name, flag, '--help', ...positional]); // the value left out before another option
        cases.push([name, flag, '-h', ...positional]);
        if (name === 'run') cases.push([name, flag, '--', 'true']); // before the agent's command
      }
      if (positional.length > 0) cases.push([name]);
    }
    expect(cases.length).toBeGreaterThan(100);
    for (const args of cases) {
      const io = bufferedIo();
      const parsed = await createProgram(io, args[0]);
      let ran = false;
      for (const sub of parsed.commands)
        sub.action(() => {
          ran = true;
        });
      const code = await parsed.parseAsync(args, { from: 'user' }).then(
        () => EXIT_CODES.ok,
        (error: unknown) => (error instanceof CommanderError ? error.exitCode : -1),
      );
      const said = args.join(' ');
      expect(ran, said).toBe(false);
      expect(code, said).not.toBe(EXIT_CODES.ok);
      expect(io.err(), said).toMatch(
        new RegExp(`^error: [^\\n]+\\n\\(run loopguard ${args[0]} --help for usage\\)\\n$`),
      );
    }
  });

  it('status, serve and recoveries say in their help which database they read without --db (qa41)', async () => {
    for (const command of ['status', 'serve', 'recoveries']) {
      const io = bufferedIo();
      expect(await runCli([command, '--help'], io)).toBe(EXIT_CODES.ok);
      expect(io.out().replace(/\s+/g, ' '), command).toContain(
        '(default: .loopguard/state.db here or above, else ~/.loopguard/state.db)',
      );
    }
  });

  it('runs as a binary: exit code and one-line error, no stack trace', () => {
    const help = execFileSync(process.execPath, [bin, '--help'], { encoding: 'utf8' });
    expect(help).toContain('Usage: loopguard');
    const bad = spawnSync(process.execPath, [bin, '--no-such-flag'], { encoding: 'utf8' });
    expect(bad.status).toBe(EXIT_CODES.usage);
    expect(bad.stderr).toContain("unknown option '--no-such-flag'");
    expect(bad.stderr).not.toMatch(/\n\s+at /);
  });

  it('a reader that stops early (`loopguard runs | head -1`) ends it quietly, with its own exit code (qa45)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'loopguard-pipe-'));
    try {
      const child = spawn(process.execPath, [bin, 'runs'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
      child.stdout.destroy(); // the reader is gone before loopguard writes a line
      let err = '';
      child.stderr.on('data', (chunk) => {
        err += chunk;
      });
      const code = await new Promise<number | null>((done) => child.on('close', done));
      expect(err).toBe('');
      expect(code).toBe(EXIT_CODES.ok);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
