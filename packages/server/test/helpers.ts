import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LoopDetector, ManualClock } from '@loopguard/core';
import { type LoopGuardDatabase, openLoopGuardDatabase } from '@loopguard/sqlite';

/** A temporary loopguard database file with a detector writing to it on a manual clock. */
export function tempDatabase(): {
  path: string;
  database: LoopGuardDatabase;
  detector: LoopDetector;
  clock: ManualClock;
  cleanup: () => void;
} {
  const dir = mkdtempSync(join(tmpdir(), 'loopguard-server-'));
  const path = join(dir, 'state.db');
  const clock = new ManualClock(Date.UTC(2025, 9, 18, 22, 0, 0));
  const database = openLoopGuardDatabase(path, { clock });
  const detector = new LoopDetector(database.stateMachine, { clock, attemptStore: database.attemptStore });
  return {
    path,
    database,
    detector,
    clock,
    cleanup: () => {
      database.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Records `count` blocked attempts on the same blocker, then detects and recovers the loop. */
export async function causeBlockedSpin(
  detector: LoopDetector,
  clock: ManualClock,
  taskId: string,
  count = 3,
): Promise<void> {
  for (let i = 0; i < count; i++) {
    detector.recordAttempt(taskId, 'blocked', ['missing auth token'], [], `session_${i}`);
    clock.advance(1000);
  }
  const loop = detector.detectLoop(taskId);
  if (!loop.isLooping) throw new Error(`expected a loop on ${taskId}`);
  await detector.applyRecovery(loop);
}

/** Records four attempts on a done task and recovers the completed-task revisit. */
export async function causeRevisit(
  detector: LoopDetector,
  clock: ManualClock,
  taskId: string,
): Promise<void> {
  for (let i = 0; i < 4; i++) {
    detector.recordAttempt(taskId, 'done', [], [`check ${i}`], `session_${i}`);
    clock.advance(1000);
  }
  const loop = detector.detectLoop(taskId);
  if (!loop.isLooping) throw new Error(`expected a loop on ${taskId}`);
  await detector.applyRecovery(loop);
}

/** Reads server-sent events from `url` until `predicate` holds for one; returns it. */
export async function waitForEvent(
  url: string,
  predicate: (name: string, data: unknown) => boolean,
  init: RequestInit = {},
  onOpen: () => Promise<void> | void = () => undefined,
): Promise<{ name: string; data: unknown }> {
  const controller = new AbortController();
  const response = await fetch(url, { ...init, signal: controller.signal });
  if (!response.ok || response.body === null) throw new Error(`GET ${url}: ${response.status}`);
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  await onOpen();
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new Error('event stream ended');
      buffer += value;
      let end = buffer.indexOf('\n\n');
      while (end >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const name = /^event: (.*)$/m.exec(block)?.[1];
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (name !== undefined && data !== undefined) {
          const parsed: unknown = JSON.parse(data);
          if (predicate(name, parsed)) return { name, data: parsed };
        }
        end = buffer.indexOf('\n\n');
      }
    }
  } finally {
    controller.abort();
  }
}
