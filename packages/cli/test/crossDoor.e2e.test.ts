import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { type DoorVerdicts, hookDoor, mcpDoor, scanDoor, streamDoor } from './crossDoorReplay.js';
import {
  type ClaudeToolScript,
  type RecordedSession,
  recordClaude,
  recordClaudeTools,
  recordCodex,
  recordGemini,
  type ShellScript,
} from './crossDoorSessions.js';

// One verdict whatever the door (issue 29): a real session of each pinned CLI (offline, against a
// scripted model API) is recorded once for every door at the same time, then replayed through each:
// the hook events through `loopguard hook <agent>`, the live output through `run --agent-stream`'s
// watcher, the transcript through `loopguard scan`. Every door must nudge and stop at the same tool
// call, with the same loop kind and message. Codex's hook reads a command's failure from its
// rollout (its event names no exit code), so its hook door agrees with the other two.

const PATTERNS = ['loadConfig', 'load_config', 'LoadConfig', 'configLoader', 'readConfig'];
const MORE = ['parseConfig', 'getConfig', 'config_load', 'loadSettings', 'load-config'];

/** Ten reworded searches that all find nothing (each with its own reasoning in `description`). */
const rewordedGreps: ShellScript = (turn) => {
  const pattern = [...PATTERNS, ...MORE][turn];
  return pattern === undefined
    ? undefined
    : {
        command: `grep -rn "${pattern}" . || echo "No matches found"`,
        description: `Search the code for ${pattern} (attempt ${turn + 1})`,
      };
};

/** The module the check imports is another copy (vendor/), so the edits to src/ can never take effect. */
const SETUP = [
  'mkdir -p src vendor',
  `printf 'export function add(a, b) {\\n  throw new Error("add is not implemented");\\n}\\n' > src/calc.mjs`,
  'cp src/calc.mjs vendor/calc.mjs',
  `printf 'import { add } from "./vendor/calc.mjs";\\nconsole.log(add(2, 3));\\n' > check.mjs`,
].join(' && ');
const editsCannotTakeEffect: ShellScript = (turn) => {
  if (turn === 0) return { command: SETUP, description: 'Set up the check' };
  if (turn > 12) return undefined;
  const attempt = Math.ceil(turn / 2);
  return turn % 2 === 1
    ? {
        command: `sed -i 's/^  .*;.*$/  return a + b; \\/\\/ attempt ${attempt}/' src/calc.mjs`,
        description: `Fix add (${attempt})`,
      }
    : { command: 'node check.mjs', description: `Run the check (${attempt})` };
};

/**
 * The same edit-and-rerun loop with Claude Code's file tools: the set-up, a `Read`, then each attempt
 * changes src/calc.mjs with `edit` and runs the check (which imports the other copy).
 */
function fileToolLoop(
  edit: (file: string, attempt: number) => { tool: string; input: Record<string, unknown> },
): ClaudeToolScript {
  return (turn, dir) => {
    const file = join(dir, 'src', 'calc.mjs');
    if (turn === 0) return { tool: 'Bash', input: { command: SETUP, description: 'Set up the check' } };
    if (turn === 1) return { tool: 'Read', input: { file_path: file } };
    if (turn > 14) return undefined;
    const attempt = Math.floor(turn / 2);
    return turn % 2 === 0
      ? edit(file, attempt)
      : { tool: 'Bash', input: { command: 'node check.mjs', description: `Run the check (${attempt})` } };
  };
}
const FIRST_LINE = 'throw new Error("add is not implemented");';
const CLAUDE_FILE_TOOL_SESSIONS = {
  editToolEdits: fileToolLoop((file, attempt) => ({
    tool: 'Edit',
    input: {
      file_path: file,
      old_string: attempt === 1 ? FIRST_LINE : `return a + b; // attempt ${attempt - 1}`,
      new_string: `return a + b; // attempt ${attempt}`,
    },
  })),
  writeToolEdits: fileToolLoop((file, attempt) => ({
    tool: 'Write',
    input: {
      file_path: file,
      content: `export function add(a, b) {\n  return a + b; // attempt ${attempt}\n}\n`,
    },
  })),
} as const;

/** Work that progresses: each call writes or reads something new. */
const progressing: ShellScript = (turn) => {
  const command = ['echo one > one.txt', 'echo two > two.txt', 'ls', 'cat one.txt two.txt'][turn];
  return command === undefined ? undefined : { command, description: `Step ${turn + 1}` };
};

/**
 * A write, three identical failures, a new write that prints nothing, the failure again: Claude
 * Code frames the silent writes ("(Bash completed with no output)"), Gemini CLI and Codex do not.
 */
const silentWriteBetweenFailures: ShellScript = (turn) => {
  const command = [
    'echo one > one.txt',
    'cat missing.txt',
    'cat missing.txt',
    'cat missing.txt',
    'echo fix > fix.txt',
    'cat missing.txt',
  ][turn];
  return command === undefined ? undefined : { command, description: `Step ${turn + 1}` };
};

const SESSIONS = {
  looping: rewordedGreps,
  editsCannotTakeEffect,
  silentWriteBetweenFailures,
  progressing,
} as const;
type SessionName = keyof typeof SESSIONS;

const RECORDERS = { claude: recordClaude, gemini: recordGemini, codex: recordCodex } as const;
type Agent = keyof typeof RECORDERS;

/** Every door's verdicts on one recorded session. */
async function doors(agent: Agent, session: RecordedSession): Promise<Record<string, DoorVerdicts>> {
  const out: Record<string, DoorVerdicts> = {
    stream: streamDoor(agent, session.stream),
    scan: await scanDoor(session.transcript),
  };
  expect(session.hookEvents?.length ?? 0).toBeGreaterThan(0);
  out.hook = await hookDoor(agent, session.hookEvents ?? []);
  if (agent === 'claude') out.mcp = await mcpDoor(session.hookEvents ?? []);
  return out;
}

/** Where a nudge and a stop come and their kinds, without the words (which quote each agent's own input). */
const placed = (verdicts: ReturnType<typeof agreed> | undefined) => ({
  nudge: verdicts?.nudge ?? null,
  stop: verdicts?.stop ? { call: verdicts.stop.call, kind: verdicts.stop.kind } : null,
});

/** Each agent's verdicts on the sessions compared across agents, filled by the tests below. */
const acrossAgents = {
  editsCannotTakeEffect: new Map<Agent, ReturnType<typeof placed>>(),
  silentWriteBetweenFailures: new Map<Agent, ReturnType<typeof placed>>(),
};

/** What all doors must agree on: where the nudge and the stop come, their kinds, the stop's message. */
const agreed = (verdicts: DoorVerdicts) => ({
  nudge: verdicts.nudge === null ? null : { call: verdicts.nudge.call, kind: verdicts.nudge.kind },
  stop: verdicts.stop,
});

describe.each(Object.keys(RECORDERS) as Agent[])(
  'one verdict through every door: real %s sessions',
  (agent) => {
    const recorded = new Map<SessionName, RecordedSession>();
    beforeAll(async () => {
      for (const name of Object.keys(SESSIONS) as SessionName[]) {
        recorded.set(name, await RECORDERS[agent](SESSIONS[name]));
      }
    }, 1_200_000);

    it('ten reworded greps that find nothing: the same nudge and the same stop at the same tool call', async () => {
      const verdicts = await doors(agent, recorded.get('looping') as RecordedSession);
      const [first, ...others] = Object.values(verdicts).map(agreed);
      expect(first?.stop, JSON.stringify(verdicts)).not.toBeNull();
      expect(first?.nudge, JSON.stringify(verdicts)).not.toBeNull();
      for (const other of others) expect(other, JSON.stringify(verdicts)).toEqual(first);
      // the live door and the hook hand the model the same nudge, and it shows the command, not JSON
      const nudges = Object.values(verdicts).flatMap((v) => (v.nudge?.message ? [v.nudge.message] : []));
      expect(new Set(nudges).size).toBe(1);
      for (const message of [...nudges, first?.stop?.message ?? ''])
        expect(message).not.toContain('{"command"');
      console.info(`cross-door ${agent} looping: ${JSON.stringify(first)}`);
    });

    it('edits that cannot take effect (the check imports another copy): the same verdicts at the same tool calls', async () => {
      const verdicts = await doors(agent, recorded.get('editsCannotTakeEffect') as RecordedSession);
      // Gemini CLI's stream gives a failing shell command's displayed output only, without its exit
      // code (the hooks and the chat have it): there the failures are ordinary results, so that door
      // may see less, never something else (step-detector.md, one translation per agent).
      const partial = agent === 'gemini' ? verdicts.stream : undefined;
      if (partial !== undefined) delete verdicts.stream;
      const [first, ...others] = Object.values(verdicts).map(agreed);
      for (const other of others) expect(other, JSON.stringify(verdicts)).toEqual(first);
      if (partial?.stop) expect(agreed(partial).stop).toEqual(first?.stop);
      // Claude Code tells the model "(Bash completed with no output)" after each edit, Codex and
      // Gemini CLI show an empty result: both are silent, so every agent gets one verdict (below),
      // the stop of edits whose rerun shows the same result
      expect(first?.stop, JSON.stringify(verdicts)).not.toBeNull();
      acrossAgents.editsCannotTakeEffect.set(agent, placed(first));
      console.info(
        `cross-door ${agent} editsCannotTakeEffect: ${JSON.stringify(first)}, partial ${JSON.stringify(partial)}`,
      );
    });

    it('a new silent write between identical failures: the same verdicts at the same tool calls', async () => {
      const verdicts = await doors(agent, recorded.get('silentWriteBetweenFailures') as RecordedSession);
      // Gemini CLI's stream has no exit code (above): its failures are ordinary results there
      if (agent === 'gemini') delete verdicts.stream;
      const [first, ...others] = Object.values(verdicts).map(agreed);
      for (const other of others) expect(other, JSON.stringify(verdicts)).toEqual(first);
      // the new write is an effect whatever its framing: the failure after it starts again
      expect(first?.stop ?? null, JSON.stringify(verdicts)).toBeNull();
      acrossAgents.silentWriteBetweenFailures.set(agent, placed(first));
      console.info(`cross-door ${agent} silentWriteBetweenFailures: ${JSON.stringify(first)}`);
    });

    it('a session that progresses: no door nudges or stops', async () => {
      const verdicts = await doors(agent, recorded.get('progressing') as RecordedSession);
      for (const [door, found] of Object.entries(verdicts)) {
        expect({ door, ...found }).toEqual({ door, nudge: null, stop: null });
      }
    });
  },
);

// The same commands get the same verdict whichever agent ran them: a silent edit is silent whether
// the agent frames it ("(Bash completed with no output)") or not (issue 37, quiet37). Runs after
// each agent's test above has recorded its verdicts.
describe('one verdict whatever the agent', () => {
  it.each(Object.keys(acrossAgents) as Array<keyof typeof acrossAgents>)(
    '%s: the same nudge and stop for every agent',
    (name) => {
      const verdicts = acrossAgents[name];
      expect([...verdicts.keys()].sort()).toEqual(['claude', 'codex', 'gemini']);
      const [first, ...others] = [...verdicts.entries()];
      for (const [agent, other] of others)
        expect({ agent, ...other }, JSON.stringify([...verdicts])).toEqual({ agent, ...first?.[1] });
    },
  );
});

// Claude Code hands its hooks a Write or Edit result as an object and the model a sentence: every
// door must read the sentence (issue 35), so that an edit-and-rerun session gets one verdict.
describe('one verdict through every door: real Claude Code sessions that edit with Write and Edit', () => {
  const recorded = new Map<string, RecordedSession>();
  beforeAll(async () => {
    for (const [name, script] of Object.entries(CLAUDE_FILE_TOOL_SESSIONS)) {
      recorded.set(name, await recordClaudeTools(script));
    }
  }, 1_200_000);

  it.each(Object.keys(CLAUDE_FILE_TOOL_SESSIONS))(
    '%s that cannot take effect: the same nudge and the same stop at the same tool call',
    async (name) => {
      const verdicts = await doors('claude', recorded.get(name) as RecordedSession);
      const [first, ...others] = Object.values(verdicts).map(agreed);
      expect(first?.stop, JSON.stringify(verdicts)).not.toBeNull();
      for (const other of others) expect(other, JSON.stringify(verdicts)).toEqual(first);
      console.info(`cross-door claude ${name}: ${JSON.stringify(first)}`);
    },
  );
});
