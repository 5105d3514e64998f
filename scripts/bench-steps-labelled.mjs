// Labelled-loop quality of the step-level loop detector on real runs of weaker models (the SWE-agent
// java dev split, hand labels), side by side with Gemini CLI's LoopDetectionService and the OpenHands
// rules. Run: npx tsc -b && node scripts/bench-steps-labelled.mjs [--details]
// Env: LOOPGUARD_LABELLED_CORPUS (default ../shared/corpora/swe-agent-java-dev from the repo root).
import os from 'node:os';
import { StepLoopDetector } from '../packages/core/dist/entries/steps.js';
import {
  GEMINI_CLI_CORE_VERSION,
  GeminiPeer,
  loadGeminiLoopDetectionService,
} from './bench/geminiLoopService.mjs';
import { labelledCorpusDir, loadLabelledCorpus, scoreLabelled } from './bench/labelledLoops.mjs';
import { OpenHandsStuckRules } from './bench/openHandsStuckRules.mjs';

const corpus = loadLabelledCorpus();
if (corpus === null) {
  console.log(`labelled corpus not found at ${labelledCorpusDir()}: skipped`);
  process.exit(0);
}
const only = process.env.LOOPGUARD_BENCH_ONLY;
// Options for loopguard's detector, as JSON (to measure a setting; the default is the defaults).
const stepOptions = JSON.parse(process.env.LOOPGUARD_STEP_OPTIONS ?? '{}');
const LoopDetectionService = only === 'loopguard' ? null : await loadGeminiLoopDetectionService();
const detectors = [
  {
    name: 'loopguard',
    create: () => {
      const detector = new StepLoopDetector(stepOptions);
      return { observe: (step) => detector.observe(step).action };
    },
  },
  { name: `gemini-cli ${GEMINI_CLI_CORE_VERSION}`, create: () => new GeminiPeer(LoopDetectionService) },
  { name: 'openhands rules', create: () => new OpenHandsStuckRules() },
].filter((d) => only === undefined || d.name.startsWith(only));

const scored = detectors.map((d) => ({ name: d.name, ...scoreLabelled(d.create, corpus) }));
const kinds = scored[0].kinds;
console.log(
  `Labelled loops on ${corpus.dir}: ${corpus.runs.length} runs (${corpus.runs.filter((r) => r.resolved).length} resolved), ${corpus.loops.length} loops, ${corpus.hardNegatives.length} hard negatives; node ${process.version}, ${os.cpus().length} cores\n`,
);
const lines = [
  ['labelled recall (stop in [certainAt − 2, loopEnd + 3])', 'recall'],
  ...kinds.map((kind) => [`recall, ${kind}`, `kind:${kind}`]),
  ['labelled recall counting nudges', 'recallAny'],
  ['median delay after certainAt (steps)', 'delay'],
  ['false stops (outside every labelled loop)', 'falseStops'],
  ['resolved runs with a false stop', 'resolvedFalse'],
  ['hard negatives stopped', 'hardStopped'],
];
console.log(`| figure | ${scored.map((s) => s.name).join(' | ')} |`);
console.log(`| --- | ${scored.map(() => '---').join(' | ')} |`);
for (const [label, key] of lines) console.log(`| ${label} | ${scored.map((s) => s.row[key]).join(' | ')} |`);
if (process.argv.includes('--details')) {
  for (const s of scored) {
    console.log(
      `\n## ${s.name}\nmissed:\n  ${s.details.missed.join('\n  ')}\nfalse stops:\n  ${s.details.falseStops.join('\n  ')}\ndelays:\n  ${s.details.delays.join('\n  ')}`,
    );
  }
}
