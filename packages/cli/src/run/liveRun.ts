import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { acquireRunLock, liveRunOwner, type RunLock, type RunRecord } from '@loopguard/sqlite';
import { CliError } from '../terminal/CliError.js';
import { EXIT_CODES } from '../terminal/exitCodes.js';
import { runDirectory } from './artifacts.js';
import {
  groupMembers,
  isRunning,
  newAgentToken,
  signalGroup,
  signalTagged,
  startWatchdog,
  watchdogsOf,
} from './processTree.js';
import { stateIoError } from './stateStore.js';

/** The live run of a repository, held by this process: its lock, its agents' token, its watchdog. */
export interface LiveRun {
  /** The token that tags this run's agent processes. */
  token: string;
  /** Records the agent's process group (for a later `resume` to end it if loopguard dies). */
  agentStarted(pid: number): void;
  /** Ends every agent process left, stops the watchdog and releases the lock. Idempotent. */
  end(): void;
}

/**
 * Takes the repository's run lock (one live run per repository) before a run starts or resumes.
 * @throws CliError exit 2 naming the live run and its pid when another process holds it.
 */
export function lockRepository(cwd: string): RunLock {
  const stateDir = join(cwd, '.loopguard');
  let lock: RunLock | null;
  try {
    lock = acquireRunLock(stateDir);
  } catch (error) {
    throw stateIoError(join(stateDir, 'run.lock'), 'lock', error);
  }
  if (lock !== null) return lock;
  const owner = liveRunOwner(stateDir);
  throw new CliError(
    `run ${owner?.runId ?? '(unknown)'} (pid ${owner?.pid ?? '?'}) is live in this repository: one live run per repository; wait for it or stop it (kill ${owner?.pid ?? '<pid>'})`,
    EXIT_CODES.usage,
  );
}

interface AgentRecord {
  token: string;
  pgid: number | null;
}

function agentFile(run: RunRecord): string {
  return join(runDirectory(run.cwd, run.id), 'agent.json');
}

/** How long `endLeftoverAgent` waits for the previous agent's processes and watchdog to be gone. */
const LEFTOVER_WAIT_MS = 15_000;
/** Sweeps in a row that must find nothing left before the previous agent counts as gone. */
const QUIET_SWEEPS = 3;

/**
 * Before a run whose loopguard process died is resumed: ends whatever is left of its agent (its
 * process group and every process tagged with its token), and waits until it is really gone and
 * its watchdog has exited — a SIGKILLed process lives on until the kernel tears it down, and a
 * child loopguard forked but had not exec'd when it died carries neither the token nor a recorded
 * group until it execs; it holds the watchdog's pipe open until then, so the watchdog, which
 * sweeps the token after that, outlives it — so the resumed agent never runs beside it.
 * @returns the line to show, or `null` when the run has no recorded agent.
 * @throws CliError exit 2 naming what is left when it is not gone within 15 s (nothing is started).
 */
export async function endLeftoverAgent(run: RunRecord): Promise<string | null> {
  let record: AgentRecord;
  try {
    record = JSON.parse(readFileSync(agentFile(run), 'utf8')) as AgentRecord;
  } catch {
    return null;
  }
  const killed = new Set<number>();
  let left: number[] = [];
  const deadline = Date.now() + LEFTOVER_WAIT_MS;
  for (let quiet = 0; quiet < QUIET_SWEEPS; ) {
    if (Date.now() >= deadline)
      throw new CliError(
        `run ${run.id}: its previous agent is not gone after ${LEFTOVER_WAIT_MS / 1000} s (process(es) ${left.join(', ')} of it or its watchdog still run); nothing was started: end them and resume again`,
        EXIT_CODES.usage,
      );
    const found = signalTagged(record.token, 'SIGKILL', 10);
    const members = record.pgid === null ? [] : groupMembers(record.pgid);
    if (record.pgid !== null && members.length > 0) signalGroup(record.pgid, 'SIGKILL');
    for (const pid of [...found, ...members]) killed.add(pid);
    left = [
      ...new Set([...watchdogsOf(record.token), ...found, ...members, ...[...killed].filter(isRunning)]),
    ];
    quiet = left.length === 0 ? quiet + 1 : 0;
    await sleep(100);
  }
  return killed.size === 0
    ? `run ${run.id}: its previous agent is gone (checked process group ${record.pgid ?? '-'} and tagged processes)`
    : `run ${run.id}: ended ${killed.size} process(es) left by its previous agent (${[...killed].join(', ')}) before resuming`;
}

/**
 * Makes this process the live run: records it as the lock's owner, tags its agents with a new
 * token, starts the watchdog that ends them if loopguard dies (even by SIGKILL), and ends them on
 * loopguard's exit.
 */
export function becomeLiveRun(lock: RunLock, run: RunRecord): LiveRun {
  const token = newAgentToken(run.id);
  lock.setOwner({ runId: run.id, pid: process.pid, agentToken: token, agentPgid: null });
  // written whole or not at all: a loopguard killed mid-write must not hide its agent from `resume`
  const record = (pgid: number | null) => {
    const temporary = `${agentFile(run)}.${process.pid}.tmp`;
    try {
      writeFileSync(temporary, `${JSON.stringify({ token, pgid } satisfies AgentRecord)}\n`);
      renameSync(temporary, agentFile(run));
    } catch (error) {
      // a failed write or rename leaves no `.<pid>.tmp` in the run's folder (doors71)
      rmSync(temporary, { force: true });
      throw error;
    }
  };
  record(null);
  const stopWatchdog = startWatchdog(token);
  const onExit = () => signalTagged(token, 'SIGKILL');
  process.on('exit', onExit);
  let ended = false;
  return {
    token,
    agentStarted(pid) {
      record(pid);
    },
    end() {
      if (ended) return;
      ended = true;
      signalTagged(token, 'SIGKILL');
      process.off('exit', onExit);
      stopWatchdog();
      lock.release();
    },
  };
}
