// One worker of a scale-out deployment: an OrchestratorLoop whose loop detector shares its state
// with every other worker through PostgreSQL. Start it on as many hosts as you like:
//   LOOPGUARD_PG=postgres://loopguard@db.internal:5432/agents node scale-out-worker.mjs worker-1
import { SharedLoopDetector } from '@loopguard/core';
import { OrchestratorLoop } from '@loopguard/orchestrator';
import { openPostgresStorage } from '@loopguard/postgres';

const worker = process.argv[2] ?? `worker-${process.pid}`;

// 1. Shared state: every worker opens the same database (the first one migrates it).
const storage = await openPostgresStorage({ connectionString: process.env.LOOPGUARD_PG, max: 4 });
await storage.stateMachine.upsertTask({ id: 'T7', title: 'Fix the deploy script' });

// 2. The detector judges the attempts of ALL workers; recoveries are written exactly once.
const detector = new SharedLoopDetector(storage, { maxAttempts: 3 });

// 3. The agent. Here a script that keeps reporting T7 done without new work: a revisit loop.
const executor = async () => ({ status: 'done', completedWork: ['ran deploy.sh'], blockers: [] });

// 4. The policy: work on T7 until some worker's recovery settles it.
const policy = {
  getSystemState: async () => ({
    task: await storage.stateMachine.getTask('T7'),
    settled:
      (await storage.stateMachine.listContextEntries({ taskId: 'T7', topics: ['loop_recovery'] })).length > 0,
  }),
  decide: ({ task, settled }) =>
    settled ? { type: 'idle', reason: 'T7 settled' } : { type: 'run_task', task },
};

const loop = new OrchestratorLoop({ detector, policy, executor });
loop.on('recoveryApplied', (outcome) =>
  console.log(`${worker}: applied ${outcome.action} to ${outcome.taskId}`),
);

// 5. Tick until idle (a real worker would loop.start() and run until stopped).
for (let tick = 1; tick <= 20; tick++) {
  const result = await loop.tick();
  if (result.action?.type === 'idle') break;
}
const recoveries = await storage.stateMachine.listContextEntries({ taskId: 'T7', topics: ['loop_recovery'] });
console.log(`${worker}: done; recoveries of T7 in the shared database: ${recoveries.length}`);
await storage.close();
