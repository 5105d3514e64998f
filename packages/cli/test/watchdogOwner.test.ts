import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { newAgentToken, watchdogsOf } from '../src/run/processTree.js';
import { eventually } from './faults/faultHelpers.js';

/** A long-lived shell whose command line reads like a run's watchdog: `… watchdog.js <token>`. */
const posing = (token: string, asUser: string[] = []) =>
  spawn(
    asUser.length > 0 ? 'setpriv' : 'sh',
    [...asUser, ...(asUser.length > 0 ? ['sh'] : []), '-c', 'sleep 30; :', 'watchdog.js', token],
    {
      stdio: 'ignore',
    },
  );

const execed = (child: ChildProcess) => {
  try {
    return readFileSync(`/proc/${child.pid}/cmdline`, 'latin1').startsWith('sh\0');
  } catch {
    return false;
  }
};

describe("a run's watchdog, as resume looks for it", () => {
  it("is a process of this user only: another user's process posing as it cannot hold a resume back", async () => {
    const token = newAgentToken('r1');
    const mine = posing(token);
    const theirs = posing(token, ['--reuid=65534', '--regid=65534', '--clear-groups']);
    try {
      expect(await eventually(() => execed(mine) && execed(theirs), 5000)).toBe(true);
      expect(watchdogsOf(token)).toEqual([mine.pid]);
    } finally {
      mine.kill('SIGKILL');
      theirs.kill('SIGKILL');
    }
  });
});
