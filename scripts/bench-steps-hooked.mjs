// The step detector's quality as the command hook applies it (`guardSession`), on the labelled dev
// corpora and gemini-3-pro's runs: each tool call is a before-call event (a repeat whose last
// result would make the stop is denied there, at the call's step) and an after-call event; each
// message an end-of-turn event (observed, its verdict only recorded). The detector benches replay
// the steps with their real results; the hook also judges a repeat before it runs, taken to give its
// last result again, and this bench scores those stops where the hook makes them.
// Run: npx tsc -b && node scripts/bench-steps-hooked.mjs [<cli dist before>] [--half even|odd]
// (a `packages/cli/dist` of another build adds a "before" row; its core resolves from its own tree)
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { halfOf, labelledCorpusDir, loadLabelledCorpus, scoreLabelled } from './bench/labelledLoops.mjs';
import { loadCorpus } from './bench/stepCorpus.mjs';

const args = process.argv.slice(2);
const halfAt = args.indexOf('--half');
const half = halfAt === -1 ? undefined : args[halfAt + 1];
const before = args.find((arg, i) => !arg.startsWith('--') && args[i - 1] !== '--half');
const guardOf = async (dist) =>
  (await import(pathToFileURL(path.resolve(dist, 'hook/guardSession.js')).href)).guardSession;
const builds = [
  ...(before === undefined ? [] : [{ name: 'hook before', guard: await guardOf(before) }]),
  { name: 'hook', guard: await guardOf('packages/cli/dist') },
];

/** A detector-shaped replayer (`observe(step)` → action) over one session of the hook. */
function hooked(guard) {
  let session = null;
  let pending;
  let n = 0;
  const context = { agent: 'claude', detector: {}, record() {}, now: () => 0 };
  const base = () => ({ sessionId: 's', projectDir: '/p', callId: String(n) });
  const apply = (event) => {
    const { result, next } = guard(event, session, context);
    if (next !== undefined) session = { ...next, createdAt: 0, updatedAt: 0 };
    return result.kind === 'stop' ? 'stop' : result.kind === 'nudge' ? 'nudge' : 'continue';
  };
  return {
    observe(step) {
      n++;
      if (step.type === 'message') {
        // a verdict at the end of a turn is recorded only: nobody hears it (see guardSession)
        apply({ ...base(), kind: 'agent_stop', eventName: 'Stop', text: step.text });
        return 'continue';
      }
      if (step.type === 'action') {
        pending = step;
        return apply({
          ...base(),
          kind: 'before_tool',
          eventName: 'PreToolUse',
          tool: step.tool,
          input: step.input,
        });
      }
      const action = pending ?? { tool: step.tool, input: '' };
      pending = undefined;
      return apply({
        ...base(),
        kind: 'after_tool',
        eventName: 'PostToolUse',
        tool: action.tool,
        input: action.input,
        output: step.output ?? '',
        error: step.error === true,
      });
    },
  };
}

const rows = [];
for (const name of ['openhands', 'java']) {
  const whole = loadLabelledCorpus(labelledCorpusDir(name));
  if (whole === null) {
    console.log(`${name}: labelled corpus absent, skipped`);
    continue;
  }
  const corpus = half === undefined || name !== 'openhands' ? whole : halfOf(whole, half);
  for (const { name: build, guard } of builds) {
    const { row } = scoreLabelled(() => hooked(guard), corpus);
    rows.push([`${name}${corpus === whole ? '' : ` (${half} half)`}`, build, row]);
  }
}
let gemini = null;
try {
  gemini = loadCorpus();
} catch {
  console.log('gemini-3-pro corpus absent, skipped');
}
const geminiRows = [];
if (gemini !== null)
  for (const { name: build, guard } of builds) {
    let stopped = 0;
    let nudged = 0;
    for (const run of gemini.filter((r) => r.resolved)) {
      let replayer = hooked(guard);
      let stops = 0;
      let nudges = 0;
      for (const step of run.steps) {
        const action = replayer.observe(step);
        if (action === 'nudge') nudges++;
        if (action === 'stop') {
          stops++;
          replayer = hooked(guard);
        }
      }
      if (stops > 0) stopped++;
      if (stops + nudges > 0) nudged++;
    }
    geminiRows.push([build, `${stopped} of ${gemini.filter((r) => r.resolved).length}`, nudged]);
  }

console.log('| corpus | build | recall | +nudge | median delay | false stops | hard negatives stopped |');
console.log('| --- | --- | --- | --- | --- | --- | --- |');
for (const [corpus, build, row] of rows)
  console.log(
    `| ${corpus} | ${build} | ${row.recall} | ${row.recallAny} | ${row.delay} | ${row.falseStops} | ${row.hardStopped} |`,
  );
for (const [build, stopped, nudged] of geminiRows)
  console.log(
    `| gemini-3-pro resolved runs | ${build} | stopped ${stopped} | with any detection ${nudged} | | | |`,
  );
