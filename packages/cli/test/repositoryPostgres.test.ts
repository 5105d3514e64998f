import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openLoopGuardDatabase } from '@loopguard/sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../src/terminal/exitCodes.js';
import { loopguard } from './runHelpers.js';

// trust52: `status`, `serve` and `recoveries` without a flag read the store `serve.postgres` of the
// project's configuration names. A cloned repository's file chose the server, and node-postgres
// sends it the user's PGPASSWORD: a secret read through loopguard by whoever wrote the repository.

const SECRET = 'pg-Secret-of-the-user-52';

/** A server that asks every client for its password in clear and keeps what it is sent. */
async function passwordCatcher(): Promise<{ server: Server; port: number; received: () => string }> {
  let received = '';
  const server = createServer((socket) => {
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1');
      // AuthenticationCleartextPassword: 'R', length 8, code 3
      const ask = Buffer.alloc(9);
      ask.write('R', 0, 'latin1');
      ask.writeInt32BE(8, 1);
      ask.writeInt32BE(3, 5);
      if (!socket.destroyed) socket.write(ask);
    });
    socket.on('error', () => {});
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { server, port: (server.address() as { port: number }).port, received: () => received };
}

let catcher: Awaited<ReturnType<typeof passwordCatcher>> | undefined;
afterEach(async () => {
  await new Promise((done) => catcher?.server.close(done) ?? done(undefined));
  catcher = undefined;
});

/** A cloned repository (git tracks its configuration) whose `serve.postgres` names `port`. */
function repository(port: number, tracked: boolean): { dir: string; file: string } {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'loopguard-pgrepo-')));
  const file = join(dir, 'loopguard.config.yaml');
  writeFileSync(file, `serve:\n  postgres: postgres://someone@127.0.0.1:${port}/fleet\n`);
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'ignore' });
  git('init', '-q');
  if (tracked) git('add', 'loopguard.config.yaml');
  return { dir, file };
}

describe("a repository's serve.postgres (trust52)", () => {
  it.each(['status', 'recoveries'])(
    "%s does not connect to a server a repository's committed file names: the user's PGPASSWORD never leaves",
    async (command) => {
      catcher = await passwordCatcher();
      const { dir, file } = repository(catcher.port, true);
      const result = await loopguard(dir, [command], { PGPASSWORD: SECRET, HOME: dir });
      expect(catcher.received()).not.toContain(SECRET);
      expect(catcher.received()).toBe(''); // not even a start-up message
      expect(result.code).toBe(EXIT_CODES.usage);
      expect(result.stderr.trim().split('\n')).toEqual([
        `loopguard: serve.postgres in ${file}, which git tracks (it came with the repository): loopguard connects to a store a repository names only when you name it (--postgres <url>, or serve's --config <file>)`,
      ]);
    },
  );

  // review59: before trust52 such a status read the fleet and named the project's own database
  // beside it; the refusal dropped that, leaving the user no word of where their sessions are
  it.each(['status', 'recoveries'])(
    "%s's refusal names the project's own database, where the hooks write its sessions",
    async (command) => {
      catcher = await passwordCatcher();
      const { dir, file } = repository(catcher.port, true);
      openLoopGuardDatabase(join(dir, '.loopguard', 'state.db'), { createDirectory: true }).close();
      const result = await loopguard(dir, [command], { PGPASSWORD: SECRET, HOME: dir });
      expect(catcher.received()).toBe('');
      expect(result.code).toBe(EXIT_CODES.usage);
      expect(result.stderr.trim().split('\n')).toEqual([
        `loopguard: serve.postgres in ${file}, which git tracks (it came with the repository): loopguard connects to a store a repository names only when you name it (--postgres <url>, or serve's --config <file>); this project's hook sessions: loopguard status --db ${join(dir, '.loopguard', 'state.db')}`,
      ]);
    },
  );

  it('is read when the user names the store (--postgres), and from a file git does not track', async () => {
    catcher = await passwordCatcher();
    const { dir } = repository(catcher.port, true);
    const url = `postgres://someone@127.0.0.1:${catcher.port}/fleet`;
    await loopguard(dir, ['status', '--postgres', url], { PGPASSWORD: SECRET, HOME: dir });
    expect(catcher.received()).toContain(SECRET); // the user chose to send it there
    await new Promise((done) => catcher?.server.close(done));
    catcher = await passwordCatcher();
    const own = repository(catcher.port, false);
    await loopguard(own.dir, ['status'], { PGPASSWORD: SECRET, HOME: own.dir });
    expect(catcher.received()).toContain(SECRET);
  });
});

// trust52: `loopguard run`'s `webhook` from a repository's committed file receives each alert (the
// run's last error line, which may quote a secret the agent printed): the serve.postgres rule.
describe("a repository's run.webhook (trust52)", () => {
  /** A cloned repository whose committed configuration names a webhook. */
  function webhookRepository(tracked: boolean): { dir: string; file: string } {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'loopguard-hookrepo-')));
    const file = join(dir, 'loopguard.config.yaml');
    writeFileSync(file, 'run:\n  max_iterations: 1\n  webhook: http://127.0.0.1:9/collect\n');
    writeFileSync(join(dir, 'PROMPT.md'), 'Fix the bug.\n');
    const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'ignore' });
    git('init', '-q');
    if (tracked) git('add', 'loopguard.config.yaml');
    return { dir, file };
  }

  it('is refused before anything runs, unless the user names it (--webhook, --config)', async () => {
    const { dir, file } = webhookRepository(true);
    const refused = await loopguard(dir, ['run', '--prompt-file', 'PROMPT.md', '--', 'true'], { HOME: dir });
    expect(refused.code).toBe(EXIT_CODES.usage);
    expect(refused.stderr.trim().split('\n')).toEqual([
      `loopguard: webhook in ${file}, which git tracks (it came with the repository): loopguard posts a run's alerts to a URL a repository names only when you name it (--webhook <url>, or --config <file>)`,
    ]);
    for (const named of [
      ['--webhook', 'http://127.0.0.1:9/mine'],
      ['--config', file],
    ]) {
      const run = await loopguard(dir, ['run', ...named, '--prompt-file', 'PROMPT.md', '--', 'true'], {
        HOME: dir,
      });
      expect(run.stderr).not.toContain('which git tracks');
    }
    const own = webhookRepository(false);
    const untracked = await loopguard(own.dir, ['run', '--prompt-file', 'PROMPT.md', '--', 'true'], {
      HOME: own.dir,
    });
    expect(untracked.stderr).not.toContain('which git tracks');
  });
});
