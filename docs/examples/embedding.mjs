// An orchestrator that embeds loopguard: an OrchestratorLoop over a SQLite file, with an executor
// that runs each task as a guarded iteration session. Run it in an empty directory of a project
// that depends on @loopguard/core, @loopguard/orchestrator and @loopguard/sqlite.
import { EventEmitter } from 'node:events';
import { IterationSessions, OrchestratorLoop } from '@loopguard/orchestrator';
import { openLoopGuardDatabase, SqliteIterationStore } from '@loopguard/sqlite';

// 1. Durable state: tasks, attempts, recoveries, iteration checkpoints, in one SQLite file.
const store = openLoopGuardDatabase('loopguard.db');
const { stateMachine } = store;
stateMachine.upsertTask({ id: 'T1', title: 'Add the login form' });
stateMachine.upsertTask({ id: 'T2', title: 'Call the billing API' });

// 2. Guarded iteration sessions: the safety checks run before every iteration.
const sessions = new IterationSessions({ stateMachine, store: new SqliteIterationStore({ db: store.db }) });
sessions.on('guardTriggered', (t) => console.log(`  guard ${t.guard} stopped ${t.taskId}: ${t.message}`));

// 3. The agent. Here a script: T1 passes on its second iteration; T2 fails until it is granted
//    unblock authority (a context entry written by the loop detector's recovery).
async function runAgent(taskId, iteration) {
  if (taskId === 'T1') {
    return iteration < 2
      ? { output: 'FAIL src/login.test.ts', passed: false }
      : { output: 'All green. <promise>COMPLETE</promise>', passed: true };
  }
  const [grant] = stateMachine.listContextEntries({ taskId, topics: ['unblock_authority'], limit: 1 });
  return grant
    ? { output: 'Stubbed the billing client. <promise>COMPLETE</promise>', passed: true }
    : { output: 'Error: missing auth token', passed: false };
}

// 4. The executor port: one task = one iteration session, until a promise or a guard ends it.
async function executor(task, { signal }) {
  const { session } = sessions.startIteration(task.id, {
    maxIterations: 5,
    completionPromises: [],
    circuitBreakerThreshold: 2,
  });
  const completedWork = [];
  while (!signal.aborted) {
    const next = sessions.nextIteration(session.id);
    if (!next.ok) {
      return { status: 'blocked', completedWork, blockers: [`Iteration safety guard: ${next.blockedBy}`] };
    }
    const { output, passed } = await runAgent(task.id, next.iteration);
    completedWork.push(`iteration ${next.iteration}: ${passed ? 'passed' : 'failed'}`);
    const { completion, completionAccepted } = sessions.recordValidation(session.id, { passed }, { output });
    if (completionAccepted) {
      return { status: completion.kind === 'complete' ? 'done' : 'blocked', completedWork, blockers: [] };
    }
  }
  throw signal.reason;
}

// 5. The policy port: the first task not done, skipping tasks a recovery moved past or escalated.
const policy = {
  getSystemState: () => ({
    tasks: stateMachine.listTasks(),
    settled: new Set(
      stateMachine
        .listContextEntries({ topics: ['loop_recovery', 'loop_escalation'] })
        .flatMap((entry) => entry.relatedTasks),
    ),
  }),
  decide: ({ tasks, settled }) => {
    const task = tasks.find((t) => t.status !== 'done' && !settled.has(t.id));
    return task ? { type: 'run_task', task } : { type: 'idle', reason: 'roadmap empty' };
  },
};

// 6. The loop: event-driven ticks (a queue event ticks at once), loop detection before each run.
const queue = new EventEmitter();
const loop = new OrchestratorLoop({
  stateMachine,
  policy,
  executor,
  scheduler: queue,
  guardStatistics: sessions,
  detectorOptions: { maxAttempts: 3, enableAutoUnblock: true, attemptStore: store.attemptStore },
  maxIdleTicks: 1, // stop at the first idle tick: this script has nothing more to do then
});
loop.on('tickCompleted', ({ tickNumber, action, details }) => {
  if (action.type === 'idle') return console.log(`tick ${tickNumber}: idle (${details.idleReason})`);
  if (details.loopRecoveryApplied) {
    const { loopType, recommendation } = details.loopDetection;
    console.log(`tick ${tickNumber}: ${action.task.id} LOOP DETECTED (${loopType}) -> ${recommendation}`);
  } else {
    const work = details.completedWork.join(', ');
    console.log(`tick ${tickNumber}: ${action.task.id} ${details.status} [${work}]`);
  }
  queue.emit('taskQueued'); // more work may be waiting: tick again now instead of after the interval
});
loop.on('tickFailed', (result, error) => console.log(`tick ${result.tickNumber} failed: ${error.message}`));
loop.on('error', (error) => console.error(`storage error: ${error.message}`));

const stopped = new Promise((resolve) => loop.once('stopped', resolve));
loop.start();
const { reason } = await stopped;

const status = loop.getStatus();
const { tickCount, guards } = status;
console.log(`stopped (${reason}) after ${tickCount} ticks; guards blocked ${guards.blocked} session(s)`);

// 7. Every recovery is a row people can query with plain SQL (the recoveries query of docs/sql.md).
const rows = store.db
  .prepare(
    `SELECT * FROM context_entries
WHERE topic IN ('loop_recovery', 'unblock_authority', 'loop_escalation')
ORDER BY timestamp DESC
LIMIT 10;`,
  )
  .all();
for (const row of rows) console.log(`recovery: ${row.topic} - ${row.content.split('\n')[0]}`);
store.close();
