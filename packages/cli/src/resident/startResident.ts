import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseEventText } from '../hook/eventText.js';
import { HOOK_SWITCH_ENV, type HookIo, logFailure } from '../hook/runHook.js';
import type { ResidentSession } from './ResidentServer.js';
import { residentRequest } from './residentClient.js';
import { type ResidentConfig, readResidentConfig } from './residentConfig.js';

/** How long `start` waits for a resident it started to listen. */
const START_TIMEOUT_MS = 5000;

/** Shells that sit between Claude Code and a hook command it runs. */
const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'fish']);

/**
 * `loopguard resident start`: Claude Code's `SessionStart` command hook in resident mode. Makes
 * sure the user's resident process runs (starting it, detached, when nothing answers on its port)
 * and registers the session with it: its project directory (where its state goes) and Claude
 * Code's process (the session is over when it is gone; the resident exits when no session is
 * left). Prints nothing (a `SessionStart` hook's output would reach the model) and always returns
 * 0; a failure is one line in the project's `.loopguard/hook.log`, and the session goes on
 * unguarded.
 * @param home - the user's home directory (where `~/.loopguard/resident.json` is).
 * @example process.exitCode = await startResident(processHookIo(), homedir());
 */
export async function startResident(io: HookIo, home: string): Promise<0> {
  const now = io.now ?? Date.now;
  let projectDir = io.env.CLAUDE_PROJECT_DIR || io.cwd;
  try {
    const event: { session_id?: unknown; cwd?: unknown } = parseEventText(await io.readStdin());
    if (typeof event.session_id !== 'string') throw new Error('the SessionStart event has no session_id');
    if (!io.env.CLAUDE_PROJECT_DIR && typeof event.cwd === 'string') projectDir = event.cwd;
    const config = readResidentConfig(home);
    if (config === undefined)
      throw new Error('no ~/.loopguard/resident.json: run loopguard init claude --resident');
    const pid = claudeCodePid();
    const session: ResidentSession = {
      sessionId: event.session_id,
      projectDir,
      ...(pid === undefined ? {} : { pid }),
      enabled: io.env[HOOK_SWITCH_ENV] !== 'off',
    };
    await register(config, session, home);
  } catch (error) {
    logFailure(projectDir, 'claude', undefined, error, now());
  }
  return 0;
}

/** Registers `session`, starting the resident first when nothing listens on its port. */
async function register(config: ResidentConfig, session: ResidentSession, home: string): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  let started = false;
  for (;;) {
    try {
      const response = await residentRequest(config, 'POST', '/sessions', session);
      if (response.status !== 204) throw new Error(`the resident process answered ${response.status}`);
      return;
    } catch (error) {
      const refused = (error as { cause?: { code?: string } }).cause?.code === 'ECONNREFUSED';
      if (!refused || Date.now() > deadline) throw error;
      if (!started) serveDetached(home);
      started = true;
      await sleep(50);
    }
  }
}

/** Starts `loopguard resident serve` on its own (it outlives this hook call and Claude Code's process group). */
function serveDetached(home: string): void {
  const bin = fileURLToPath(new URL('../bin.js', import.meta.url));
  spawn(process.execPath, [bin, 'resident', 'serve'], { cwd: home, detached: true, stdio: 'ignore' }).unref();
}

/**
 * Claude Code's process: the first ancestor of this hook process that is not a shell (Claude Code
 * runs hook commands through one). Read from `/proc`; elsewhere the parent process.
 */
export function claudeCodePid(): number | undefined {
  let pid = process.ppid;
  for (let depth = 0; depth < 4; depth++) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      return depth === 0 ? pid : undefined;
    }
    const open = stat.indexOf('(');
    const close = stat.lastIndexOf(')');
    const command = basename(stat.slice(open + 1, close));
    if (!SHELLS.has(command)) return pid;
    pid = Number(stat.slice(close + 2).split(' ')[1]);
  }
  return undefined;
}
