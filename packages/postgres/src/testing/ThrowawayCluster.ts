import { execFile, execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * Options of {@link ThrowawayCluster.start}.
 * @example
 * const cluster = await ThrowawayCluster.start({ user: 'postgres' });
 */
export interface ThrowawayClusterOptions {
  /**
   * The directory holding `initdb` and `pg_ctl`.
   * @default the newest `/usr/lib/postgresql/<version>/bin`, else the directory of `initdb` on `PATH`
   */
  binDir?: string;
  /**
   * The unprivileged system user that runs the server when this process is root (PostgreSQL refuses
   * to run as root).
   * @default 'postgres' when that user exists, else 'nobody'
   */
  user?: string;
  /**
   * Keep PostgreSQL's crash safety (`fsync`, `synchronous_commit`, `full_page_writes` on), as a
   * production server runs: for benchmarks. Tests leave it off, which is faster and loses nothing
   * unless the machine crashes.
   * @default false
   */
  durable?: boolean;
  /**
   * More server settings, each `name=value` (passed as `-c name=value`), e.g.
   * `shared_preload_libraries=pg_stat_statements` to profile a benchmark.
   * @default []
   */
  settings?: readonly string[];
  /**
   * The TCP port on 127.0.0.1 tried first; when it is taken the server starts on a free one.
   * @default a free port the kernel picks
   */
  port?: number;
}

/**
 * How many ports `start` tries: a free port is picked, then the server binds it, and another
 * process may take it in between (seen under load).
 */
const START_ATTEMPTS = 5;

/** The server log's words for a port it could not bind (PostgreSQL 12–17, `LC_ALL=C`). */
const PORT_TAKEN = /could not bind IPv4 address .*: Address already in use/;

/** Where `initdb` lives, or `undefined`. */
function findBinDir(): string | undefined {
  const base = '/usr/lib/postgresql';
  if (existsSync(base)) {
    const versions = readdirSync(base)
      .filter((v) => existsSync(join(base, v, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0] !== undefined) return join(base, versions[0], 'bin');
  }
  try {
    const initdb = execFileSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' }).trim();
    return initdb === '' ? undefined : join(initdb, '..');
  } catch {
    return undefined;
  }
}

/** The uid and gid of a system user. */
function idsOf(user: string): { uid: number; gid: number } {
  const uid = Number(execFileSync('id', ['-u', user], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', user], { encoding: 'utf8' }).trim());
  return { uid, gid };
}

function userExists(user: string): boolean {
  try {
    execFileSync('id', ['-u', user], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** A free TCP port on 127.0.0.1 (the kernel picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (address !== null && typeof address === 'object') resolve(address.port);
        else reject(new Error('could not read the port the kernel picked'));
      });
    });
  });
}

/**
 * A PostgreSQL cluster in a temporary directory, for tests and benchmarks: `initdb` with trust
 * authentication, `pg_ctl start` on a free port of 127.0.0.1 (and a Unix socket in the same
 * directory), `stop`/`start` to simulate a server restart, and `destroy` to remove everything.
 * When this process is root the server runs as an unprivileged user that owns the directory
 * (the checkout may live in root's mode-700 home, so nothing is read from it).
 *
 * A port another process takes between its pick and the server's bind (seen under load) is
 * replaced by a fresh one, a few times at most. Starting fails with an error that says why (no
 * `initdb`, `initdb` or `pg_ctl` output), never silently.
 *
 * @example
 * const cluster = await ThrowawayCluster.start();
 * const storage = await openPostgresStorage({ connectionString: cluster.connectionString });
 * // …
 * await storage.close();
 * await cluster.destroy();
 */
export class ThrowawayCluster {
  private constructor(
    /** The temporary directory (data in `data/`, log in `server.log`). */
    readonly dir: string,
    private serverPort: number,
    private readonly binDir: string,
    private readonly ids: { uid: number; gid: number } | undefined,
    private readonly durable: boolean,
    private readonly settings: readonly string[],
  ) {}

  /** The TCP port on 127.0.0.1 the server listens on. */
  get port(): number {
    return this.serverPort;
  }

  /** `postgres://loopguard@127.0.0.1:<port>/postgres`: superuser `loopguard`, no password. */
  get connectionString(): string {
    return `postgres://loopguard@127.0.0.1:${this.serverPort}/postgres`;
  }

  /**
   * Creates and starts a cluster.
   * @throws Error naming the reason when PostgreSQL is not installed or does not start.
   */
  static async start(options: ThrowawayClusterOptions = {}): Promise<ThrowawayCluster> {
    const binDir = options.binDir ?? findBinDir();
    if (binDir === undefined || !existsSync(join(binDir, 'initdb'))) {
      throw new Error(
        'PostgreSQL is not installed: no initdb in /usr/lib/postgresql/*/bin or on PATH (install the Debian package "postgresql"; .ci/run does)',
      );
    }
    const root = process.getuid?.() === 0;
    const user = options.user ?? (userExists('postgres') ? 'postgres' : 'nobody');
    const ids = root ? idsOf(user) : undefined;
    const dir = mkdtempSync(join(tmpdir(), 'loopguard-pg-'));
    if (ids) chownSync(dir, ids.uid, ids.gid);
    const cluster = new ThrowawayCluster(
      dir,
      options.port ?? (await freePort()),
      binDir,
      ids,
      options.durable === true,
      options.settings ?? [],
    );
    try {
      await cluster.exec('initdb', [
        '-D',
        join(dir, 'data'),
        '-U',
        'loopguard',
        '--auth=trust',
        '-E',
        'UTF8',
        '--locale=C',
        '--no-sync',
      ]);
      await cluster.startOnFreePort();
    } catch (error) {
      rmSync(dir, { recursive: true, force: true });
      throw error;
    }
    return cluster;
  }

  /** Starts the server, on a fresh port each time the one tried is taken (up to {@link START_ATTEMPTS} ports). */
  private async startOnFreePort(): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const logged = this.log().length;
      try {
        return await this.startServer();
      } catch (error) {
        if (attempt === START_ATTEMPTS || !PORT_TAKEN.test(this.log().slice(logged))) throw error;
        this.serverPort = await freePort();
      }
    }
  }

  /** Starts the server again after {@link stop} (same data, same port). */
  async startServer(): Promise<void> {
    const settings = [
      `-p ${this.port}`,
      "-h '127.0.0.1'",
      `-k '${this.dir}'`,
      '-c max_connections=200',
      ...(this.durable ? [] : ['-c fsync=off', '-c synchronous_commit=off', '-c full_page_writes=off']),
      ...this.settings.map((setting) => `-c ${setting}`),
    ].join(' ');
    try {
      await this.exec('pg_ctl', [
        '-D',
        join(this.dir, 'data'),
        '-l',
        join(this.dir, 'server.log'),
        '-o',
        settings,
        '-w',
        '-t',
        '60',
        'start',
      ]);
    } catch (error) {
      throw new Error(`PostgreSQL did not start: ${(error as Error).message}\n${this.log()}`);
    }
  }

  /** Stops the server (`fast`: open connections are terminated, as in a restart). */
  async stop(): Promise<void> {
    await this.exec('pg_ctl', ['-D', join(this.dir, 'data'), '-m', 'fast', '-w', 'stop']);
  }

  /** Stops the server when running and removes the directory. */
  async destroy(): Promise<void> {
    try {
      await this.exec('pg_ctl', ['-D', join(this.dir, 'data'), '-m', 'immediate', '-w', 'stop']);
    } catch {
      // already stopped
    }
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** The server log so far (for failure messages). */
  log(): string {
    try {
      return readFileSync(join(this.dir, 'server.log'), 'utf8');
    } catch {
      return '';
    }
  }

  private async exec(program: string, args: string[]): Promise<void> {
    try {
      await run(join(this.binDir, program), args, {
        cwd: this.dir,
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C', TZ: 'UTC' },
        ...(this.ids ?? {}),
      });
    } catch (error) {
      const { stderr, stdout } = error as { stderr?: string; stdout?: string };
      throw new Error(`${program} ${args.at(-1)} failed: ${stderr || stdout || (error as Error).message}`);
    }
  }
}
