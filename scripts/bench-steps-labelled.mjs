// Labelled-loop quality of the step-level loop detector on one hand-labelled corpus (the SWE-agent
// java dev split of weaker models, or the OpenHands + Claude 3.5 dev split), side by side with Gemini
// CLI's LoopDetectionService and the OpenHands rules.
// Run: npx tsc -b && node scripts/bench-steps-labelled.mjs [--corpus java|openhands] [--half even|odd|A|B] [--details]
// (--half: the runs at even or odd positions in index.json only, see bench/labelledLoops.mjs halfOf;
// A or B: the runs whose task id hashes to that half, see hashHalfOf)
// Env: LOOPGUARD_LABELLED_CORPUS (a corpus folder, instead of --corpus), LOOPGUARD_BENCH_ONLY,
// LOOPGUARD_STEP_OPTIONS (loopguard's options as JSON), LOOPGUARD_BENCH_BASELINE (an older
// packages/core/dist: a "loopguard before" column, see bench/loopguardBuilds.mjs).
import {
  GEMINI_CLI_CORE_VERSION,
  GeminiPeer,
  loadGeminiLoopDetectionService,
} from './bench/geminiLoopService.mjs';
import { printLabelledTable } from './bench/labelledLoops.mjs';
import { loopguardDetectors } from './bench/loopguardBuilds.mjs';
import { OpenHandsStuckRules } from './bench/openHandsStuckRules.mjs';

const only = process.env.LOOPGUARD_BENCH_ONLY;
const LoopDetectionService = only === 'loopguard' ? null : await loadGeminiLoopDetectionService();
const detectors = [
  ...(await loopguardDetectors()),
  { name: `gemini-cli ${GEMINI_CLI_CORE_VERSION}`, create: () => new GeminiPeer(LoopDetectionService) },
  { name: 'openhands rules', create: () => new OpenHandsStuckRules() },
].filter((d) => only === undefined || d.name.startsWith(only));

const at = process.argv.indexOf('--corpus');
const corpus = at === -1 ? 'java' : process.argv[at + 1];
const halfAt = process.argv.indexOf('--half');
const half = halfAt === -1 ? undefined : process.argv[halfAt + 1];
printLabelledTable(detectors, { details: process.argv.includes('--details'), corpus, half });
