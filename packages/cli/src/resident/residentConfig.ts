import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** Where the resident process is found and how it is spoken to: one per user. */
export interface ResidentConfig {
  /** The TCP port on 127.0.0.1, chosen free by `loopguard init claude --resident`. */
  port: number;
  /** The per-user secret every request carries (`Authorization: Bearer <token>`). */
  token: string;
}

/** The home directory of the resident's files: `HOME`, else the system's idea of it. */
export function residentHome(env: NodeJS.ProcessEnv): string {
  return env.HOME || homedir();
}

/** `~/.loopguard/resident.json` (mode 600, in a mode-700 directory). */
export function residentConfigFile(home: string): string {
  return join(home, '.loopguard', 'resident.json');
}

/** The resident process's own log (start, stop, requests that name no project): `~/.loopguard/resident.log`. */
export function residentLogFile(home: string): string {
  return join(home, '.loopguard', 'resident.log');
}

/**
 * The user's resident configuration, or `undefined` when `init --resident` never made one.
 * @throws Error naming the file when it is not a configuration.
 */
export function readResidentConfig(home: string): ResidentConfig | undefined {
  const file = residentConfigFile(home);
  if (!existsSync(file)) return undefined;
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<ResidentConfig> | null;
  const { port, token } = parsed ?? {};
  if (
    !Number.isInteger(port) ||
    (port as number) < 1 ||
    (port as number) > 65_535 ||
    typeof token !== 'string'
  ) {
    throw new Error(`${file} must hold {"port": <1-65535>, "token": "<text>"}`);
  }
  return { port: port as number, token };
}

/**
 * The user's resident configuration, made on first use: a free port on 127.0.0.1 and a random
 * token, written readable by the user only. An existing one is kept (its port is in the settings
 * files already written).
 * @param options.save - `false`: a new configuration is made but not written (a dry run). @default true
 */
export async function ensureResidentConfig(
  home: string,
  options: { save?: boolean } = {},
): Promise<ResidentConfig> {
  const existing = readResidentConfig(home);
  if (existing !== undefined) return existing;
  const config: ResidentConfig = { port: await freePort(), token: randomBytes(32).toString('hex') };
  if (options.save === false) return config;
  const dir = join(home, '.loopguard');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = residentConfigFile(home);
  const temporary = `${file}.${process.pid}`;
  writeFileSync(temporary, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  chmodSync(temporary, 0o600);
  renameSync(temporary, file);
  return config;
}

/** A port on 127.0.0.1 that nothing listens on now (the kernel's choice). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
