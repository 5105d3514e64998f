import { readFileSync, readlinkSync } from 'node:fs';
import { basename } from 'node:path';

/**
 * The agent CLI's process as a hook call saw it: what lets a door say a session whose agent was
 * killed without its end event (a closed terminal, `kill -9`) has ended, without waiting out the
 * 10 minutes of `RUNNING_WINDOW_MS`. Linux only (read from `/proc`); elsewhere there is none and
 * the 10 minutes hold.
 * @example { id: 'linux:0:2f1c…:4026531836:41233:7950083' }
 */
export interface AgentProcess {
  /**
   * `linux:<uid>:<boot id>:<pid namespace>:<pid>:<start time in clock ticks>`: the boot, the pid
   * namespace and the start time rule out another process given the same pid later, or a pid of
   * another machine or container.
   */
  id: string;
}

/** A shell an agent runs a hook's command line through (`/bin/sh -c '<command>'`: Claude Code does). */
const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'ash', 'busybox']);

/**
 * Whether `program` is a shell: one of {@link SHELLS}, or the user's own (`$SHELL`: fish, tcsh or any
 * other), which an agent may run a hook's command line through (Codex's hook runner does, `$SHELL -lc
 * '<command>'`, where no shell program is set; the pinned 0.169.0 runs `/bin/bash -c`).
 */
function isShell(program: string): boolean {
  const name = basename(program);
  return SHELLS.has(name) || (process.env.SHELL !== undefined && name === basename(process.env.SHELL));
}

/**
 * The process of the agent CLI that started this hook process: the nearest ancestor that is neither
 * a shell the agent ran the hook's command line through (`sh -c '… hook claude'`: Claude Code's
 * command hooks), nor a shell running a script, nor a launcher of this very command (`npx loopguard
 * hook claude`, `pnpm exec …`: a process whose command line holds this program and its arguments), each
 * of which is started for one call and ends with it (Gemini CLI 0.61.0 and Codex 0.169.0 run a hook
 * through `bash -c`). Claude Code's MCP server's is its direct parent. `null` off
 * Linux, or when `/proc` cannot tell. Keeps nothing between calls (the hook's startup snapshot runs
 * it while it is built, so that a call does not compile it).
 */
export function hookAgentProcess(): AgentProcess | null {
  if (process.platform !== 'linux' || typeof process.getuid !== 'function') return null;
  try {
    const own = process.argv.slice(2);
    let pid = process.ppid;
    // a few steps at most: `sh -c` → `npm exec` → `sh -c` is the longest chain of a known launcher
    for (let step = 0; step < 8 && pid > 1 && startedForThisCall(pid, own); step++) pid = statOf(pid).ppid;
    if (pid <= 1) return null;
    const { startTicks } = statOf(pid);
    // read, not kept: the hook's startup snapshot runs this while it is built (hookWarmUp.ts), and a
    // kept value would be the build's boot and pid namespace in every call started from it
    return { id: ['linux', process.getuid(), readMachine(), pid, startTicks].join(':') };
  } catch {
    return null;
  }
}

/**
 * Whether the process `id` names ({@link AgentProcess.id}) is known to be gone: this machine, boot
 * and pid namespace, the reader's own user, and no process with that pid and start time. `false`
 * when it cannot be known here (another system, machine, container or user; `null`): the session
 * then keeps the 10-minute rule.
 */
export function agentProcessGone(id: string | null): boolean {
  return agentProcessState(id) === 'gone';
}

/**
 * What is known here of the process `id` names: `gone` (see {@link agentProcessGone}), `running`
 * (this machine, boot, pid namespace and user, a live process with that pid and start time), or
 * `unknown`.
 */
export function agentProcessState(id: string | null): 'gone' | 'running' | 'unknown' {
  if (id === null || process.platform !== 'linux' || typeof process.getuid !== 'function') return 'unknown';
  const match = /^linux:(\d+):(.+):(\d+):(\d+)$/.exec(id);
  if (match === null) return 'unknown';
  const [, uid, machine, pid, startTicks] = match;
  try {
    // another user's processes may be hidden from this one (`hidepid`): not known gone
    if (Number(uid) !== process.getuid() || machine !== machineOf()) return 'unknown';
  } catch {
    return 'unknown';
  }
  try {
    const stat = statOf(Number(pid));
    // an exited process its parent has not reaped yet (`Z`, or where no one reaps: a container's init) is gone
    const gone = stat.startTicks !== Number(startTicks) || stat.state === 'Z' || stat.state === 'X';
    return gone ? 'gone' : 'running';
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'gone' : 'unknown';
  }
}

/**
 * Whether `word` names this program as a launcher's command line does: its script (`process.argv[1]`)
 * or loopguard's package (`loopguard`, `loopguard@0.1.0`, `@loopguard/cli`, `…/.bin/loopguard`).
 */
function namesThisProgram(word: string): boolean {
  return word === process.argv[1] || /(^|\/)(loopguard|@loopguard\/cli)(@[\w.-]+)?$/.test(word);
}

/**
 * Whether the process `ancestor` names is one of the ancestors of the process `id` names (both
 * {@link AgentProcess.id}s of this machine's processes): a process that holds a session and started
 * the one sending its events (the model's own CLI resuming its own session in a child), or a
 * subreaper (`systemd --user`) recorded for a session whose CLI died during a hook call, above every
 * process of the user's. `false` when it cannot be told.
 */
export function isAncestorProcess(ancestor: string, id: string): boolean {
  const [pid, startTicks] = id.split(':').slice(-2).map(Number);
  const [wanted, wantedTicks] = ancestor.split(':').slice(-2).map(Number);
  if (ancestor.split(':').slice(0, -2).join(':') !== id.split(':').slice(0, -2).join(':')) return false;
  try {
    let stat = statOf(pid as number);
    if (stat.startTicks !== startTicks) return false;
    // a pid chain is a few dozen long at most; the bound keeps a cycle (none in Linux) from looping
    for (let step = 0; step < 64 && stat.ppid > 0; step++) {
      const parent = stat.ppid;
      stat = statOf(parent);
      if (parent === wanted && stat.startTicks === wantedTicks) return true;
    }
  } catch {
    // a process in the chain ended meanwhile: not told
  }
  return false;
}

/**
 * Whether `pid` is a process started for this hook call, not the agent: a shell running one command
 * line (`sh -c '<command>'`, `bash -lc …`) or a script (`sh wrapper.sh`), or a process whose command
 * line holds this program and `own` after it (this process's arguments, `hook claude`, `mcp`: a
 * launcher such as `npm exec loopguard mcp`, which may have rewritten its command line into one
 * string, then read word by word). The program is required: an agent whose own arguments hold the
 * words (`claude -p mcp`) is no launcher (sessions55).
 */
function startedForThisCall(pid: number, own: string[]): boolean {
  const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8')
    .split('\0')
    .filter((arg) => arg !== '');
  // the agent is never a shell: one with arguments between it and this process (`-c`, `-lc`, a script) is the call's
  if (isShell(argv[0] ?? '') && argv.length >= 2) return true;
  // one string: a title the process set (`npm exec loopguard hook claude`); else its arguments as
  // given, so that an agent's prompt that happens to say "hook claude" is no launcher
  const words = argv.length === 1 ? (argv[0] ?? '').split(/\s+/) : argv;
  return (
    own.length > 0 &&
    words.some((word, i) => namesThisProgram(word) && own.every((arg, j) => words[i + 1 + j] === arg))
  );
}

/** `pid`'s state, parent and start time (`/proc/<pid>/stat`, read after the command's name, which may hold anything). */
function statOf(pid: number): { state: string; ppid: number; startTicks: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { state: fields[0] ?? '', ppid: Number(fields[1]), startTicks: Number(fields[19]) };
}

let machine: string | undefined;

/** This boot of this machine, and this process's pid namespace, read once (a door judges many sessions). */
function machineOf(): string {
  machine ??= readMachine();
  return machine;
}

/** This boot of this machine, and this process's pid namespace, read now. */
function readMachine(): string {
  return `${readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()}:${readlinkSync('/proc/self/ns/pid').replace(/\D/g, '')}`;
}
