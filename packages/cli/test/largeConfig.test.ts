import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../src/main.js';
import { EXIT_CODES } from '../src/terminal/exitCodes.js';
import { bufferedIo } from './helpers.js';
import { claudeFailingCall, hookCall, hookLog, tempProject } from './hookHelpers.js';

async function run(cwd: string, args: string[]) {
  const io = bufferedIo({ cwd, env: { NO_COLOR: '1' } });
  const code = await runCli(args, io);
  return { code, out: io.out(), err: io.err() };
}

/**
 * A project whose `loopguard.config.json` is larger than any configuration: a repository's file (or
 * its link to `/proc/self/pagemap`, which reads as a regular file of size 0 and gives gigabytes)
 * that every reader took whole, the hooks at each call and `status` and the dashboard at each look.
 * Here a valid configuration padded to 128 KiB, so that what changes is the reading, not the parsing.
 */
function projectWithLargeConfig(): { dir: string; file: string } {
  const dir = tempProject();
  const file = join(dir, 'loopguard.config.json');
  writeFileSync(file, `{"hook": {"repeatThreshold": 3}}${' '.repeat(128 * 1024)}`);
  return { dir, file };
}

describe('a configuration file larger than any configuration is refused unread (trust49)', () => {
  it('the hooks fail open on it and say why in hook.log; status says so in one line', async () => {
    const { dir, file } = projectWithLargeConfig();
    const config = readFileSync(file);
    // a session guarded before the file came (a `git pull`): the project has its database
    rmSync(file);
    const first = claudeFailingCall(dir, 's1', 1);
    await hookCall(dir, 'claude', first.pre);
    await hookCall(dir, 'claude', first.post);
    writeFileSync(file, config);
    const { pre } = claudeFailingCall(dir, 's1', 2);
    const reply = await hookCall(dir, 'claude', pre);
    expect(reply.code).toBe(0);
    expect(reply.stdout).toBe('');
    expect(hookLog(dir).join('\n')).toContain(`config ${file} is larger than 64 KiB`);
    // status reads the file unread too, and says the hooks fail open on it (sessions57: was a refusal)
    const status = await run(dir, ['status']);
    expect(status.code, status.err).toBe(EXIT_CODES.ok);
    expect(status.out).toContain(
      `hooks: failing open in this project (config ${file} is larger than 64 KiB, more than a configuration holds): loopguard guards no session here until that file is fixed\n`,
    );
  });

  it('run refuses it with one line, exit 2', async () => {
    const { dir, file } = projectWithLargeConfig();
    const result = await run(dir, ['run', '--', 'true']);
    expect(result.code).toBe(EXIT_CODES.usage);
    expect(result.err).toContain(`config ${file}: cannot be read: config ${file} is larger than 64 KiB`);
  });
});
