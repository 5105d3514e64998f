import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { parseEventText } from '../hook/eventText.js';
import { MAX_EVENT_BYTES, readBounded } from '../hook/readBounded.js';
import { answerHookEvent } from '../hook/runHook.js';
import { HookDatabasePool } from './HookDatabasePool.js';
import type { ResidentConfig } from './residentConfig.js';

/** A Claude Code session the resident process guards, as its `SessionStart` hook registered it. */
export interface ResidentSession {
  /** Claude Code's `session_id`. */
  sessionId: string;
  /** The project directory: `.loopguard/state.db` of this project holds the session's state. */
  projectDir: string;
  /** Claude Code's process: the session is over when it is gone. */
  pid?: number;
  /** `false` when the session was started with `LOOPGUARD_HOOK=off`: its events are answered with silence. */
  enabled: boolean;
}

/** Options of {@link ResidentServer}. */
export interface ResidentServerOptions {
  /** Port and token. */
  config: ResidentConfig;
  /**
   * How often the server checks that its sessions' Claude Code processes still run. It stops when
   * no session is left at two checks in a row.
   * @default 5000
   */
  checkIntervalMs?: number;
  /** Writes one line of the resident's own log. */
  log(line: string): void;
  /** Epoch ms. @default Date.now */
  now?: () => number;
}

/**
 * The resident process of Claude Code's `http` hooks: one per user, on 127.0.0.1, answering every
 * session of every project from one process (no node start-up per tool call). Each event is
 * answered as the command hook answers it, its state written to its project's
 * `.loopguard/state.db`; every request carries the user's token.
 *
 * - `POST /hook/claude`: an event (`SessionEnd` unregisters its session); the reply is the JSON the
 *   command hook would print, or an empty body.
 * - `POST /sessions`: a {@link ResidentSession} (from `loopguard resident start`).
 * - `GET /health`: `{ pid, sessions }`. `POST /stop`: stops the server.
 * @example
 * const server = new ResidentServer({ config, log: console.log });
 * await server.start();
 * await server.closed;
 */
export class ResidentServer {
  private readonly sessions = new Map<string, ResidentSession>();
  private readonly databases = new HookDatabasePool();
  private readonly server: Server;
  private readonly token: Buffer;
  private timer: NodeJS.Timeout | undefined;
  private emptyChecks = 0;
  private resolveClosed: () => void = () => {};
  /** Resolves when the server has stopped (no session left, `POST /stop`, or {@link stop}). */
  readonly closed: Promise<void> = new Promise((resolve) => {
    this.resolveClosed = resolve;
  });

  /** @param options - see {@link ResidentServerOptions}. */
  constructor(private readonly options: ResidentServerOptions) {
    this.token = Buffer.from(`Bearer ${options.config.token}`);
    this.server = createServer((request, response) => {
      this.handle(request, response).catch((error: unknown) => {
        options.log(`request failed: ${error instanceof Error ? error.message : String(error)}`);
        if (!response.headersSent) response.writeHead(200).end();
      });
    });
    this.server.keepAliveTimeout = 60_000;
  }

  /** Listens on 127.0.0.1 at the configured port. @throws the listen error (`EADDRINUSE`: one is running). */
  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.options.config.port, '127.0.0.1', () => {
        this.server.off('error', reject);
        this.timer = setInterval(() => this.checkSessions(), this.options.checkIntervalMs ?? 5000);
        this.options.log(`listening on 127.0.0.1:${this.options.config.port} (pid ${process.pid})`);
        resolve();
      });
    });
  }

  /** Stops listening and ends open connections. Idempotent. */
  async stop(reason = 'stopped'): Promise<void> {
    if (this.timer === undefined) return this.closed;
    clearInterval(this.timer);
    this.timer = undefined;
    this.options.log(`${reason}; exiting`);
    this.server.close(() => {
      this.databases.closeAll();
      this.resolveClosed();
    });
    this.server.closeAllConnections();
    return this.closed;
  }

  /** Drops the sessions whose Claude Code is gone; stops when none was left at two checks in a row. */
  private checkSessions(): void {
    for (const [id, session] of this.sessions) {
      if (session.pid !== undefined && !isAlive(session.pid)) this.sessions.delete(id);
    }
    this.emptyChecks = this.sessions.size === 0 ? this.emptyChecks + 1 : 0;
    if (this.emptyChecks >= 2) void this.stop('no session left');
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const auth = Buffer.from(request.headers.authorization ?? '');
    if (auth.length !== this.token.length || !timingSafeEqual(auth, this.token)) {
      response.writeHead(401).end();
      return;
    }
    const route = `${request.method} ${request.url}`;
    if (route === 'GET /health') {
      json(response, { pid: process.pid, sessions: this.sessions.size });
      return;
    }
    if (route === 'POST /stop') {
      response.writeHead(204).end();
      void this.stop('asked to stop');
      return;
    }
    const body = await readBounded(request);
    if (route === 'POST /sessions') {
      const session = JSON.parse(body ?? '') as ResidentSession;
      this.sessions.set(session.sessionId, session);
      this.emptyChecks = 0;
      response.writeHead(204).end();
      return;
    }
    if (route === 'POST /hook/claude') {
      response.writeHead(200, { 'content-type': 'application/json' }).end(await this.answer(body));
      return;
    }
    response.writeHead(404).end();
  }

  /** The reply to one Claude Code event, as the command hook would print it. */
  private async answer(body: string | undefined): Promise<string> {
    if (body === undefined) {
      this.options.log(`an event larger than ${MAX_EVENT_BYTES} bytes was answered with silence`);
      return '';
    }
    let fields: Record<string, unknown> | undefined;
    try {
      fields = parseEventText(body); // bounded before any work, as the hook reads it, and read once
    } catch {
      // answerHookEvent logs it
    }
    const event: { session_id?: unknown; hook_event_name?: unknown } = fields ?? {};
    const session = typeof event.session_id === 'string' ? this.sessions.get(event.session_id) : undefined;
    if (event.hook_event_name === 'SessionEnd') {
      if (session !== undefined) this.sessions.delete(session.sessionId);
      return '';
    }
    if (session?.enabled === false) return '';
    return answerHookEvent('claude', body, {
      env: { CLAUDE_PROJECT_DIR: session?.projectDir ?? '' },
      cwd: session?.projectDir ?? process.cwd(),
      openDatabase: this.databases.open,
      ...(fields === undefined ? {} : { fields }),
      ...(this.options.now === undefined ? {} : { now: this.options.now }),
    });
  }
}

/** Whether process `pid` runs (a process of another user counts as running). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function json(response: ServerResponse, value: unknown): void {
  response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(value));
}
