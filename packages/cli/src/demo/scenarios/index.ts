import type { DemoScenario } from '../DemoContext.js';
import { activeWork } from './activeWork.js';
import { aiSdkAgent } from './aiSdkAgent.js';
import { blockedTaskSpin } from './blockedTaskSpin.js';
import { breakerTrip } from './breakerTrip.js';
import { claudeCodeHook } from './claudeCodeHook.js';
import { codexHook } from './codexHook.js';
import { completedTaskRevisit } from './completedTaskRevisit.js';
import { crossTaskCycle } from './crossTaskCycle.js';
import { editsCannotTakeEffect } from './editsCannotTakeEffect.js';
import { escalationSticks } from './escalationSticks.js';
import { guardTrip } from './guardTrip.js';
import { nearDuplicateRetry } from './nearDuplicateRetry.js';
import { noProgressRepeat } from './noProgressRepeat.js';
import { permissionDenied } from './permissionDenied.js';
import { scanTranscript } from './scanTranscript.js';
import { spendBudget } from './spendBudget.js';

/** The scenarios `loopguard demo` runs, in order. Add new ones here. */
export const DEMO_SCENARIOS: readonly DemoScenario[] = [
  completedTaskRevisit,
  blockedTaskSpin,
  noProgressRepeat,
  escalationSticks,
  crossTaskCycle,
  guardTrip,
  permissionDenied,
  breakerTrip,
  activeWork,
  nearDuplicateRetry,
  editsCannotTakeEffect,
  scanTranscript,
  spendBudget,
  claudeCodeHook,
  codexHook,
  aiSdkAgent,
];
