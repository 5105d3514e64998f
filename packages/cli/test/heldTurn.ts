import { expect } from 'vitest';
import { hookState } from './hookHelpers.js';

/**
 * A running session held on its model while a test runs a second process on it: the scripted
 * API calls `waiting()` and awaits `held` in the session's turn; the test awaits `sessionWaits`
 * (the session is then running), runs its second process, and calls `release()`.
 */
export function heldTurn(): {
  held: Promise<void>;
  release: () => void;
  sessionWaits: Promise<void>;
  waiting: () => void;
} {
  let release = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  let waiting = () => {};
  const sessionWaits = new Promise<void>((resolve) => {
    waiting = resolve;
  });
  return { held, release, sessionWaits, waiting };
}

/** The running session's row after the second process: its own call only, no loop, no stop. */
export function expectOnlyItsOwnCall(dir: string, sessionId: string): void {
  expect(hookState(dir).sessions).toMatchObject([{ session_id: sessionId, tool_calls: 1, stops: 0 }]);
  expect(hookState(dir).entries).toEqual([]);
}
