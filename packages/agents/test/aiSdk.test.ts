import { InMemoryStateMachine } from '@loopguard/core';
import { generateText, isStepCount, streamText, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { loopGuard } from '../src/ai-sdk/index.js';
import { type ScriptedReply, scriptedModel } from './aiSdkModel.js';
import { PROGRESS, PROGRESS_FILES } from './progress.js';

// A file tool over a tiny in-memory file system: reading a missing file throws, like fs does.
function fileTools(files: Record<string, string>) {
  return {
    readFile: tool({
      description: 'Read a file',
      inputSchema: z.object({ path: z.string() }),
      execute: async ({ path }) => {
        const text = files[path];
        if (text === undefined) throw new Error(`ENOENT: no such file or directory, open '${path}'`);
        return text;
      },
    }),
    writeFile: tool({
      description: 'Write a file',
      inputSchema: z.object({ path: z.string(), text: z.string() }),
      execute: async ({ path, text }) => {
        files[path] = text;
        return `wrote ${text.length} bytes to ${path}`;
      },
    }),
  };
}

const readMissing: ScriptedReply = { tool: 'readFile', input: { path: 'missing.txt' } };

/** The index of the first prompt that carries a nudge (-1 when none does). */
function firstNudged(prompts: ReadonlyArray<ReadonlyArray<{ role: string; content: unknown }>>): number {
  return prompts.findIndex((prompt) => userTexts(prompt).some((text) => text.startsWith('Loop detected')));
}

/** The text of every user message of one prompt the model was sent. */
function userTexts(prompt: ReadonlyArray<{ role: string; content: unknown }>): string[] {
  return prompt
    .filter((message) => message.role === 'user')
    .flatMap((message) =>
      Array.isArray(message.content)
        ? message.content.map((part: { text?: string }) => part.text ?? '')
        : [String(message.content)],
    );
}

describe('AI SDK loopGuard (generateText with the SDK mock model)', () => {
  it('nudges a model that repeats the same failing tool call (the nudge is in the next prompt), then stops it', async () => {
    const model = scriptedModel(() => readMissing);
    const guard = loopGuard();
    const result = await generateText({
      model,
      tools: fileTools({}),
      prompt: 'Summarise missing.txt',
      prepareStep: guard.prepareStep,
      stopWhen: guard.stopWhen,
    });
    expect(guard.run.nudges).toHaveLength(1);
    expect(guard.run.nudges[0]).toContain('Loop detected (same_error)');
    // the nudge is in the prompt right after the failure that made it, and in none before
    const nudged = firstNudged(model.doGenerateCalls.map((call) => call.prompt));
    expect(nudged).toBeGreaterThanOrEqual(2);
    expect(userTexts(model.doGenerateCalls[nudged]?.prompt ?? [])).toContain(guard.run.nudges[0]);
    // the same failure once more after the nudge stops the loop (stopAfter 1, the default)
    expect(result.steps).toHaveLength(nudged + 1);
    expect(model.doGenerateCalls).toHaveLength(nudged + 1);
    expect(result.finishReason).toBe('tool-calls');
    expect(guard.stopVerdict).toMatchObject({ action: 'stop', loopType: 'same_error' });
    expect(guard.stopVerdict?.message).toContain("ENOENT: no such file or directory, open 'missing.txt'");
  });

  it('leaves a progressing model alone: it writes new files and finishes on its own', async () => {
    const script = (call: number): ScriptedReply => {
      const step = PROGRESS[call];
      return step === undefined ? { text: 'Done.' } : { tool: step.tool, input: step.args };
    };
    const model = scriptedModel(script);
    const files: Record<string, string> = {};
    const guard = loopGuard();
    const result = await generateText({
      model,
      tools: fileTools(files),
      prompt: 'Write the config parser',
      prepareStep: guard.prepareStep,
      stopWhen: guard.stopWhen,
    });
    expect(result.text).toBe('Done.');
    expect(result.finishReason).toBe('stop');
    expect(Object.keys(files).sort()).toEqual(PROGRESS_FILES);
    expect(guard.run.nudges).toEqual([]);
    expect(guard.stopVerdict).toBeNull();
    // 5 actions + 5 observations; the final reply ends the run, so no hook sees it (nothing is left to guard)
    expect(guard.run.detector.stepCount).toBe(10);
  });

  it('keeps the run’s own stop conditions: isStepCount ends a loop before the guard would', async () => {
    const model = scriptedModel(() => readMissing);
    const guard = loopGuard({ stopWhen: isStepCount(2) });
    const result = await generateText({
      model,
      tools: fileTools({}),
      prompt: 'x',
      prepareStep: guard.prepareStep,
      stopWhen: guard.stopWhen,
    });
    expect(result.steps).toHaveLength(2);
    expect(guard.stopVerdict).toBeNull();
  });

  it('defaults the run’s own limit to 20 steps (detection off, so only the limit ends the loop)', async () => {
    const guard = loopGuard({ enabled: false });
    const result = await generateText({
      model: scriptedModel(() => readMissing),
      tools: fileTools({}),
      prompt: 'x',
      ...guard,
    });
    expect(result.steps).toHaveLength(20);
    expect(guard.stopVerdict).toBeNull();
  });

  it('applies the detector options: stopAfter 2 gives the nudged loop one more step before the stop', async () => {
    const model = scriptedModel(() => readMissing);
    const guard = loopGuard({ stopAfter: 2 });
    const result = await generateText({ model, tools: fileTools({}), prompt: 'x', ...guard });
    const nudged = firstNudged(model.doGenerateCalls.map((call) => call.prompt));
    expect(nudged).toBeGreaterThan(0);
    expect(result.steps).toHaveLength(nudged + 2);
    expect(guard.stopVerdict?.loopType).toBe('same_error');
  });

  it('calls the run’s own prepareStep first and adds the nudge to the messages it returns', async () => {
    const model = scriptedModel(() => readMissing);
    const seen: number[] = [];
    const guard = loopGuard({
      prepareStep: ({ stepNumber, messages }) => {
        seen.push(stepNumber);
        return { messages: [...messages, { role: 'user', content: `own note ${stepNumber}` }] };
      },
    });
    const result = await generateText({ model, tools: fileTools({}), prompt: 'x', ...guard });
    expect(seen).toEqual(result.steps.map((_, index) => index));
    const nudged = firstNudged(model.doGenerateCalls.map((call) => call.prompt));
    const texts = userTexts(model.doGenerateCalls[nudged]?.prompt ?? []);
    expect(texts.indexOf(`own note ${nudged}`)).toBeGreaterThan(-1);
    expect(texts.findIndex((text) => text.startsWith('Loop detected'))).toBeGreaterThan(
      texts.indexOf(`own note ${nudged}`),
    );
  });

  it('records the nudge and the stop as loop_nudge / loop_stop context entries', async () => {
    const stateMachine = new InMemoryStateMachine();
    const guard = loopGuard({ stateMachine, taskId: 'T1', runId: 'r1' });
    await generateText({
      model: scriptedModel(() => readMissing),
      tools: fileTools({}),
      prompt: 'x',
      ...guard,
    });
    const entries = stateMachine.listContextEntries({ topics: ['loop_nudge', 'loop_stop'] });
    expect(entries.map((entry) => entry.topic).sort()).toEqual(['loop_nudge', 'loop_stop']);
    expect(entries[0]?.metadata).toMatchObject({ runId: 'r1', loopType: 'same_error' });
  });

  it('answers synchronously while no write is pending', () => {
    const guard = loopGuard();
    expect(guard.stopWhen[0]?.({ steps: [] })).toBe(false);
  });

  it('rejects a bad detector option with a ConfigurationError naming it', () => {
    expect(() => loopGuard({ repeatThreshold: 1 })).toThrow(/repeatThreshold/);
  });
});

describe('AI SDK loopGuard (streamText with the SDK mock model)', () => {
  it('nudges and then stops a looping stream the same way', async () => {
    const model = scriptedModel(() => readMissing);
    const guard = loopGuard();
    const result = streamText({ model, tools: fileTools({}), prompt: 'x', ...guard });
    await result.consumeStream();
    const nudged = firstNudged(model.doStreamCalls.map((call) => call.prompt));
    expect(nudged).toBeGreaterThanOrEqual(2);
    expect(await result.steps).toHaveLength(nudged + 1);
    expect(await result.finishReason).toBe('tool-calls');
    expect(guard.stopVerdict?.action).toBe('stop');
  });

  it('leaves a progressing stream alone', async () => {
    const model = scriptedModel((call) =>
      PROGRESS[call] === undefined
        ? { text: 'All written.' }
        : { tool: PROGRESS[call].tool, input: PROGRESS[call].args },
    );
    const guard = loopGuard();
    const result = streamText({ model, tools: fileTools({}), prompt: 'x', ...guard });
    expect(await result.text).toBe('All written.');
    expect(guard.run.nudges).toEqual([]);
    expect(guard.stopVerdict).toBeNull();
  });
});
