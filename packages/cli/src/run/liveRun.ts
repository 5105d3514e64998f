import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { acquireRunLock, liveRunOwner, type RunLock, type RunRecord } from '@loopguard/sqlite';
import { CliError } from '../CliError.js';
import { EXIT_CODES } from '../exitCodes.js';
import { runDirectory } from './artifacts.js';
import { groupMembers, newAgentToken, signalGroup, signalTagged, startWatchdog } from './processTree.js';
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

/**
 * Before a run whose loopguard process died is resumed: ends whatever is left of its agent (its
 * process group and every process tagged with its token) and says what it did.
 * @returns the line to show, or `null` when the run has no recorded agent.
 */
export function endLeftoverAgent(run: RunRecord): string | null {
  let record: AgentRecord;
  try {
    record = JSON.parse(readFileSync(agentFile(run), 'utf8')) as AgentRecord;
  } catch {
    return null;
  }
  const killed = new Set(signalTagged(record.token, 'SIGKILL', 10));
  const members = record.pgid === null ? [] : groupMembers(record.pgid);
  if (record.pgid !== null && members.length > 0) {
    signalGroup(record.pgid, 'SIGKILL');
    for (const pid of members) killed.add(pid);
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
  const record = (pgid: number | null) =>
    writeFileSync(agentFile(run), `${JSON.stringify({ token, pgid } satisfies AgentRecord)}\n`);
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
