import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { claudeHook } from './claudeHook.js';
import { geminiHook } from './geminiHook.js';
import type { HookDialect, HookEvent } from './hookEvent.js';

/** Where a hook call reads and writes: the process by default, buffers in tests. */
export interface HookIo {
  /** The event JSON (the whole of stdin). */
  readStdin(): Promise<string>;
  /** Writes the reply (the only thing a hook ever prints). */
  stdout(text: string): void;
  /** The hook process's environment. */
  env: NodeJS.ProcessEnv;
  /** The working directory (the log's fallback location before the event names the project). */
  cwd: string;
  /** Epoch ms. @default Date.now */
  now?: () => number;
}

/** The environment variable that switches the hook off for one session: `LOOPGUARD_HOOK=off claude`. */
export const HOOK_SWITCH_ENV = 'LOOPGUARD_HOOK';

const DIALECTS: Record<string, HookDialect> = { claude: claudeHook, gemini: geminiHook };

/**
 * One hook call: `loopguard hook claude|gemini` with the CLI's event on stdin. Always returns 0:
 * when loopguard itself fails (a missing or corrupt database, a lock held past `lockTimeoutMs`, a
 * malformed or unknown event, a bad configuration), nothing is printed and one line goes to
 * `.loopguard/hook.log` in the project: a guard that breaks must not break the agent.
 *
 * @param agent - `claude` or `gemini`.
 * @example process.exitCode = await runHook('claude', processHookIo());
 */
export async function runHook(agent: string, io: HookIo): Promise<0> {
  const now = io.now ?? Date.now;
  let event: HookEvent | undefined;
  let projectDir = io.env.CLAUDE_PROJECT_DIR || io.env.GEMINI_PROJECT_DIR || io.cwd;
  try {
    if (io.env[HOOK_SWITCH_ENV] === 'off') return 0;
    const dialect = DIALECTS[agent];
    if (dialect === undefined)
      throw new Error(`unknown agent ${JSON.stringify(agent)} (expected claude or gemini)`);
    const text = await io.readStdin();
    let payload: unknown;
    try {
      payload = JSON.parse(text);
    } catch {
      throw new Error(`the event is not JSON: ${JSON.stringify(text.slice(0, 80))}`);
    }
    event = dialect.parse(payload, io.env);
    projectDir = event.projectDir;
    const { guardProject } = await import('./guardProject.js');
    const reply = await guardProject(dialect.agent, event, now);
    const out = dialect.render(event, reply);
    if (out !== '') io.stdout(out);
  } catch (error) {
    logFailure(projectDir, agent, event, error, now());
  }
  return 0;
}

/** Appends one line to `<projectDir>/.loopguard/hook.log`; a log that cannot be written is given up silently. */
export function logFailure(
  projectDir: string,
  agent: string,
  event: HookEvent | undefined,
  error: unknown,
  at: number,
): void {
  const reason = (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ').trim();
  const where = event === undefined ? '' : ` ${event.eventName} session=${event.sessionId}`;
  const line = `${new Date(at).toISOString()} ${agent}${where}: failed open: ${reason}\n`;
  try {
    mkdirSync(join(projectDir, '.loopguard'), { recursive: true });
    appendFileSync(join(projectDir, '.loopguard', 'hook.log'), line);
  } catch {
    // Nowhere to log: the hook still exits 0 with nothing on stdout.
  }
}

/** The {@link HookIo} of the running process. */
export function processHookIo(): HookIo {
  return {
    readStdin: async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    },
    stdout: (text) => process.stdout.write(text),
    env: process.env,
    cwd: process.cwd(),
  };
}
