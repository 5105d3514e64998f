import { describe, expect, it } from 'vitest';
import { parseStepLoopDetectorOptions, type Step, StepLoopDetector } from '../../src/entries/steps.js';
import { ConfigurationError, InMemoryStateMachine, InvalidInputError } from '../../src/index.js';
import { validateStep } from '../../src/steps/step.js';
import { COUNTS_ONLY, makeStepDetector } from './helpers.js';

describe('bad steps', () => {
  it.each([
    [null, /^step must be an object, got null/],
    [{ type: 'tool' }, /^step\.type must be one of action, observation, message, got "tool"/],
    [{ type: 'action', tool: '', input: 'ls' }, /^step\.tool must be a non-empty string/],
    [{ type: 'action', tool: 'bash' }, /^step\.input must be present/],
    [{ type: 'observation', output: 3 }, /^step\.output must be a string, got number 3/],
    [{ type: 'observation', output: '', error: 'yes' }, /^step\.error must be a boolean/],
    [{ type: 'observation', output: '', tool: 1 }, /^step\.tool must be a string when given/],
    [{ type: 'observation', output: '', refused: 1 }, /^step\.refused must be a boolean when given/],
    [{ type: 'message' }, /^step\.text must be a string/],
  ])('%j is rejected naming the field, and nothing is recorded', (step, message) => {
    const { detector } = makeStepDetector();
    expect(() => detector.observe(step as unknown as Step)).toThrow(InvalidInputError);
    expect(() => detector.observe(step as unknown as Step)).toThrow(message);
    expect(detector.stepCount).toBe(0);
  });

  it('extra fields are dropped and the caller’s step is not changed', () => {
    const step = { type: 'observation', output: 'x', error: true, exitCode: 1, tool: 'bash' };
    expect(validateStep(step)).toEqual({ type: 'observation', output: 'x', error: true, tool: 'bash' });
    expect(step.exitCode).toBe(1);
  });
});

describe('bad options', () => {
  it.each([
    [{ repeatThreshold: 1 }, /"repeatThreshold"/],
    [{ chantShare: 0 }, /"chantShare"/],
    [{ maxCycleLength: 17 }, /"maxCycleLength"/],
    [{ stopAfter: 0 }, /"stopAfter"/],
    [{ exemptCommands: ['sleep'] }, /"exemptCommands.0"/],
    [{ unknown: 1 }, /StepLoopDetector options/],
    [{ stateMachine: new InMemoryStateMachine() }, /"taskId" is required when stateMachine is given/],
  ])('%j is a ConfigurationError naming the option', (options, message) => {
    expect(() => new StepLoopDetector(options as never)).toThrow(ConfigurationError);
    expect(() => new StepLoopDetector(options as never)).toThrow(message);
  });

  it('options validated once (parseStepLoopDetectorOptions) are taken as they are; a look-alike is validated', () => {
    const parsed = parseStepLoopDetectorOptions({ repeatThreshold: 4, exemptTools: ['watch'] });
    expect(Object.isFrozen(parsed)).toBe(true);
    expect(new StepLoopDetector(parsed).options).toEqual(
      new StepLoopDetector({ repeatThreshold: 4 }).options,
    );
    expect(() => parseStepLoopDetectorOptions({ stopAfter: 0 })).toThrow(/"stopAfter"/);
    // a copy of validated options, changed after the check, is not the validated object: checked again
    const changed = { ...parsed, repeatThreshold: 1 };
    expect(() => new StepLoopDetector(changed)).toThrow(ConfigurationError);
    expect(() => new StepLoopDetector(changed)).toThrow(/"repeatThreshold"/);
    expect(() => {
      (parsed as { repeatThreshold: number }).repeatThreshold = 1;
    }).toThrow(TypeError);
  });

  it('defaults are documented values', () => {
    expect(new StepLoopDetector().options).toEqual({
      repeatThreshold: 3,
      sameErrorThreshold: 3,
      verbatimThreshold: 3,
      verbatimChangeThreshold: 2,
      nearDuplicateThreshold: 3,
      nearDuplicateSimilarity: 0.5,
      sameOutcomeThreshold: 4,
      staleTurnThreshold: 8,
      probeRepeats: 3,
      probeCeiling: 3,
      probeVerdictCeiling: 4,
      rejectedThreshold: 3,
      rejectedStopThreshold: 10,
      oscillationRepeats: 2,
      cycleRepeats: 2,
      maxCycleLength: 10,
      messageRepeatThreshold: 3,
      messageSimilarity: 0.8,
      chantRepeats: 10,
      chantShare: 0.5,
      streamChantRepeats: 20,
      stopAfter: 1,
      maxEvidence: 10,
    });
  });

  it('maxEvidence bounds the evidence of a verdict', () => {
    const { detector } = makeStepDetector({ ...COUNTS_ONLY, maxEvidence: 2, repeatThreshold: 4 });
    let last = detector.observe({ type: 'message', text: 'start' });
    for (let i = 0; i < 4; i++) {
      detector.observe({ type: 'action', tool: 'bash', input: 'ls' });
      last = detector.observe({ type: 'observation', output: 'a' });
    }
    expect(last.action).toBe('nudge');
    expect(last.evidence).toHaveLength(2);
  });
});
