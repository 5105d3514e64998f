import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { HookEvent } from '../src/hook/hookEvent.js';
import { hooksRemovedRefusal } from '../src/hook/hooksRemovedCall.js';
import { ownStateRefusal } from '../src/hook/ownStateCall.js';
import { unhookedAgentRefusal } from '../src/hook/unhookedAgentCall.js';

// Every shell command and file path of three corpora of real agent runs (../shared/corpora, read
// at run time, never copied) goes through the refusal rule of the model's own calls: ordinary work
// must never meet it (qa38c, qa42). Without the corpora there is nothing to read.
const CORPORA = fileURLToPath(new URL('../../../../shared/corpora/', import.meta.url));

/** The `.jsonl` step files under `dir`, full paths. */
function stepFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.jsonl'))
    .map((name) => join(dir, name));
}

/** The tool calls of a corpus as the hook sees them before they run (a bare string is a command). */
function* calls(corpus: string): Generator<HookEvent> {
  for (const file of stepFiles(join(CORPORA, corpus)))
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (line === '') continue;
      const step = JSON.parse(line) as { type?: string; tool?: string; input?: unknown };
      if (step.type !== 'action') continue;
      yield {
        kind: 'before_tool',
        tool: step.tool ?? '',
        input: typeof step.input === 'string' ? { command: step.input } : step.input,
        projectDir: '/workspace/project',
        sessionId: 's',
        callId: 'c',
      } as HookEvent;
    }
}

describe.skipIf(!existsSync(CORPORA))(
  "the model's own calls: none of three corpora's ordinary work is refused",
  () => {
    it.each(['openhands-claude35-dev', 'swe-agent-java-dev', 'swe-trajectories-dev'])('%s', (corpus) => {
      let seen = 0;
      const refused: number[] = [];
      for (const event of calls(corpus)) {
        seen++;
        // and those that take loopguard's hooks out of an agent's hooks file or start an agent
        // without them (trust64)
        const refusal = ownStateRefusal(event) ?? hooksRemovedRefusal(event) ?? unhookedAgentRefusal(event);
        if (refusal !== undefined) refused.push(seen); // the call's number, not its text
      }
      expect(seen).toBeGreaterThan(1000);
      expect(refused).toEqual([]);
    });
  },
);
