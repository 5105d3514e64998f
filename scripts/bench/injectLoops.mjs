// Injects loops of every kind into real runs, with a fixed seed, and says where each loop becomes
// certain: the step that completes its second repetition (for chanting, the message itself).

/** mulberry32: a small seeded PRNG, so every run of the benchmark injects the same loops. */
export function seededRandom(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const REASONS = [
  'THOUGHT: Let me run this again to be sure.',
  'THOUGHT: I will try that once more.',
  'THOUGHT: Running it again should show the change.',
  'THOUGHT: Once more, to check the result.',
  'THOUGHT: Let me look at this again.',
  'THOUGHT: I need to verify this one more time.',
];

/** The real turns of a run: `{ message, action, observation }` with a successful observation. */
function turnsOf(steps) {
  const turns = [];
  let message;
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i];
    if (step.type === 'message') message = step;
    else if (step.type === 'action' && steps[i + 1]?.type === 'observation') {
      const observation = steps[i + 1];
      if (!observation.error && !observation.submitted) turns.push({ action: step, observation, message });
      message = undefined;
      i++;
    }
  }
  return turns;
}

/** Start indexes of turns (a message or an action that begins a turn), in the middle of the run. */
function turnStarts(steps) {
  const starts = [];
  for (let i = 1; i < steps.length - 1; i++) {
    if (steps[i].type === 'message' || (steps[i].type === 'action' && steps[i - 1].type !== 'message'))
      starts.push(i);
  }
  return starts.filter((i) => i > steps.length * 0.2 && i < steps.length * 0.9);
}

function pick(random, values) {
  return values[Math.floor(random() * values.length)];
}

/** `count` turns with pairwise different commands and outputs. */
function distinctTurns(random, turns, count) {
  const chosen = [];
  for (let tries = 0; tries < 200 && chosen.length < count; tries++) {
    const turn = pick(random, turns);
    if (
      chosen.every(
        (c) => c.action.input !== turn.action.input && c.observation.output !== turn.observation.output,
      )
    )
      chosen.push(turn);
  }
  return chosen.length === count ? chosen : null;
}

function turnSteps(turn, reason, overrides = {}) {
  return [
    { type: 'message', text: reason },
    { type: 'action', tool: 'bash', input: overrides.input ?? turn.action.input },
    {
      type: 'observation',
      tool: 'bash',
      output: overrides.output ?? turn.observation.output,
      ...(overrides.error ? { error: true } : {}),
    },
  ];
}

/** Repeats `unit` (turns) `reps` times; returns the steps and the index of the step that completes repetition 2. */
function repeatTurns(random, unit, reps, vary = () => ({})) {
  const steps = [];
  let certain = -1;
  let k = 0;
  for (let rep = 0; rep < reps; rep++) {
    for (const turn of unit) {
      steps.push(...turnSteps(turn, pick(random, REASONS), vary(k++)));
    }
    if (rep === 1) certain = steps.length - 1;
  }
  return { steps, certain };
}

function tracebackOutput(random, k) {
  const line = 20 + Math.floor(random() * 400);
  const address = Math.floor(random() * 0xffffff).toString(16);
  return [
    'Traceback (most recent call last):',
    `  File "/testbed/reproduce_issue.py", line ${line + k}, in <module>`,
    '    main()',
    `  File "/testbed/src/module.py", line ${line * 2 + k}, in main`,
    `    raise ValueError(f"unexpected value {obj!r}")`,
    `ValueError: unexpected value <Widget object at 0x7f${address}${k}>`,
  ].join('\n');
}

/** The kinds of injected loop and how each is built from a run's real turns. */
export const INJECTED_KINDS = {
  repeated_action: (random, turns) => repeatTurns(random, [pick(random, turns)], 5),
  near_duplicate: (random, turns) => {
    const turn = pick(random, turns);
    return repeatTurns(random, [turn], 5, (k) => ({
      input: `${' '.repeat(k % 3)}${String(turn.action.input).replace(/ /, ' '.repeat(1 + (k % 2)))}  # /tmp/run-${k}x${Math.floor(random() * 1e6)} at 2025-11-18T10:0${k}:00Z`,
      output: `${turn.observation.output}\n(finished in ${(random() * 3).toFixed(2)}s, pid ${1000 + k})`,
    }));
  },
  same_error_varying: (random, turns) => {
    const turn = pick(random, turns);
    return repeatTurns(random, [turn], 5, (k) => ({ output: tracebackOutput(random, k), error: true }));
  },
  oscillation: (random, turns) => {
    const unit = distinctTurns(random, turns, 2);
    return unit && repeatTurns(random, unit, 4);
  },
  cycle3: (random, turns) => {
    const unit = distinctTurns(random, turns, 3);
    return unit && repeatTurns(random, unit, 3 + Math.floor(random() * 6));
  },
  cycle4: (random, turns) => {
    const unit = distinctTurns(random, turns, 4);
    return unit && repeatTurns(random, unit, 3);
  },
  cycle5: (random, turns) => {
    const unit = distinctTurns(random, turns, 5);
    return unit && repeatTurns(random, unit, 3);
  },
  repeated_message: (random) => {
    const text = pick(random, [
      'I am not sure what to do next, let me think about the problem again.',
      'Let me reconsider the approach before changing anything.',
    ]);
    const steps = Array.from({ length: 5 }, () => ({ type: 'message', text }));
    return { steps, certain: 1 };
  },
  chanting: (random) => {
    const sentence = pick(random, [
      'I will now fix the failing test. ',
      'The fix is correct and complete. ',
      'Let me check the file again. ',
    ]);
    return { steps: [{ type: 'message', text: `THOUGHT: ${sentence.repeat(150)}` }], certain: 0 };
  },
};

/**
 * For each resolved run and each kind: the run's prefix up to a turn boundary, then the loop.
 * Returns `{ run, kind, steps, start, certain, end }` (indexes into `steps`).
 */
export function injectedCases(runs, seed) {
  const random = seededRandom(seed);
  const cases = [];
  for (const run of runs) {
    const turns = turnsOf(run.steps);
    const starts = turnStarts(run.steps);
    if (turns.length < 6 || starts.length === 0) continue;
    for (const [kind, build] of Object.entries(INJECTED_KINDS)) {
      const loop = build(random, turns);
      if (loop === null) continue;
      const start = pick(random, starts);
      const steps = [...run.steps.slice(0, start), ...loop.steps];
      cases.push({ run: run.id, kind, steps, start, certain: start + loop.certain, end: steps.length - 1 });
    }
  }
  return cases;
}
