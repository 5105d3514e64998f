import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The environment variable that tags every process of an agent: set on the agent, inherited by its
 * children, grandchildren and daemons (even after `setsid` or a re-parenting to PID 1), so the whole
 * tree is found through `/proc/<pid>/environ`. A process that clears its environment escapes.
 */
export const AGENT_TOKEN_VARIABLE = 'LOOPGUARD_AGENT_TOKEN';

/** A new token for one loopguard process's agents. */
export function newAgentToken(runId: string): string {
  return `${runId}.${process.pid}.${randomBytes(6).toString('hex')}`;
}

/** Whether the tree can be found on this platform (Linux: `/proc`). Elsewhere only the process group is ended. */
export const CAN_FIND_TREE = process.platform === 'linux';

/** The pids of the processes (this one excluded) whose `/proc/<pid>/<file>` holds `needle`. */
function processesHolding(file: 'environ' | 'cmdline', needle: string): number[] {
  if (!CAN_FIND_TREE) return [];
  const found: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid) continue;
    try {
      if (`\0${readFileSync(`/proc/${entry}/${file}`, 'latin1')}`.includes(needle)) found.push(pid);
    } catch {
      // gone, or not ours to read
    }
  }
  return found;
}

/** The pids of every process whose environment carries `token` (this process excluded). */
export function taggedProcesses(token: string): number[] {
  return processesHolding('environ', `\0${AGENT_TOKEN_VARIABLE}=${token}\0`);
}

/**
 * The pids of the watchdogs started for `token` (its last argument), among this user's processes
 * (anyone can read a command line: another user's process naming the token is not our watchdog).
 * A watchdog outlives its loopguard until every child loopguard forked has exec'd (each holds a
 * copy of the pipe until then, before it carries the token) and it has swept for 2 s after that.
 */
export function watchdogsOf(token: string): number[] {
  // `startWatchdog` runs `node …/watchdog.js <token>`: the script and the token, side by side.
  return processesHolding('cmdline', `watchdog.js\0${token}\0`).filter((pid) => {
    try {
      return statSync(`/proc/${pid}`).uid === process.getuid?.();
    } catch {
      return false;
    }
  });
}

/**
 * Sends `signal` to every tagged process, again and again while new ones appear (a tree that forks
 * while it is being killed), at most `rounds` times. Synchronous, so it also runs in an `exit` handler.
 * @returns the pids signalled.
 */
export function signalTagged(token: string, signal: NodeJS.Signals, rounds = 5): number[] {
  const signalled = new Set<number>();
  for (let round = 0; round < rounds; round++) {
    const pids = taggedProcesses(token);
    if (pids.length === 0) break;
    for (const pid of pids) {
      try {
        process.kill(pid, signal);
        signalled.add(pid);
      } catch {
        // already gone
      }
    }
    if (signal !== 'SIGKILL') break;
  }
  return [...signalled];
}

/** `pid`'s state letter and process group from `/proc/<pid>/stat`, or `null` when it is gone. */
function processStat(pid: number | string): { state: string; pgrp: number } | null {
  try {
    // pid (comm) state ppid pgrp …; comm may hold spaces and parentheses
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const [state = '', , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state, pgrp: Number(pgrp) };
  } catch {
    return null;
  }
}

/** Whether `pid` still runs (it exists and is not a zombie); `false` where `/proc` is missing. */
export function isRunning(pid: number): boolean {
  const stat = CAN_FIND_TREE ? processStat(pid) : null;
  return stat !== null && stat.state !== 'Z';
}

/** The live (not zombie) members of process group `pgid`, from `/proc`; `[]` elsewhere. */
export function groupMembers(pgid: number): number[] {
  if (!CAN_FIND_TREE) return [];
  const members: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = processStat(entry);
    if (stat !== null && stat.pgrp === pgid && stat.state !== 'Z') members.push(Number(entry));
  }
  return members;
}

/** Sends `signal` to a process group, ignoring a group that is gone. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // the group is already gone
  }
}

/**
 * Starts the watchdog of this loopguard process: a detached process that holds a pipe from it and,
 * when the pipe closes (loopguard exited, crashed or was SIGKILLed), kills every process tagged with
 * `token`. It outlives a SIGKILL of loopguard, which no in-process handler does.
 * @returns a function that stops it after a last sweep (call on a normal exit).
 */
export function startWatchdog(token: string): () => void {
  if (!CAN_FIND_TREE) return () => {};
  const script = fileURLToPath(new URL('./watchdog.js', import.meta.url));
  const { [AGENT_TOKEN_VARIABLE]: _inherited, ...env } = process.env;
  const child = spawn(process.execPath, [script, token], {
    detached: true,
    stdio: ['pipe', 'ignore', 'ignore'],
    cwd: '/',
    env,
  });
  child.on('error', () => {});
  child.stdin?.on('error', () => {});
  child.unref();
  (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  return () => {
    child.stdin?.end();
  };
}
