import { pino } from 'pino';
import {
  InMemoryAttemptStore,
  InMemoryStateMachine,
  LoopDetector,
  type LoopDetectorOptions,
  ManualClock,
} from '../src/index.js';

/** A detector over in-memory adapters with a manual clock, and a logger whose lines are captured. */
export function makeDetector(options: LoopDetectorOptions = {}) {
  const clock = new ManualClock(1_760_825_000_000);
  const stateMachine = new InMemoryStateMachine({ clock });
  const attemptStore = new InMemoryAttemptStore();
  const lines: Array<{ level: number; msg: string } & Record<string, unknown>> = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  const detector = new LoopDetector(stateMachine, { clock, attemptStore, logger, ...options });
  return { clock, stateMachine, attemptStore, detector, lines, messages: () => lines.map((l) => l.msg) };
}
