import { isAbsolute, join, resolve } from 'node:path';
import { shellSegments } from '@loopguard/core/internal';
import { beforeToolCall, type HookEvent } from './hookEvent.js';
import { folderHoldsHooks } from './hooksRemovedCall.js';
import { shellWords } from './shellWords.js';

/**
 * An agent the model starts with its hooks off (trust64): `codex exec --disable hooks` (Codex
 * 0.169.0: "Equivalent to `-c features.hooks=false`", which `ownStateCall.ts` refuses already),
 * Claude Code's `--bare` ("skip hooks"), `--safe-mode` (hooks disabled), `--restricted` and a
 * `--setting-sources` that leaves a source out (the settings files that hold loopguard's hooks
 * are not read), or `CLAUDE_CODE_SIMPLE` / `CLAUDE_CODE_SAFE_MODE` set (what the two flags set).
 * The nested agent would run its tool calls where loopguard sees none of them: a switch the model
 * flips, as its settings' switches are. Gemini CLI 0.61.0 has no option that skips its hooks.
 * Codex's `--ignore-user-config` skips `$CODEX_HOME/config.toml`, where its hooks' trust and the
 * project's are kept: it runs none of them. So does an agent started with another home
 * (`CODEX_HOME`, `CLAUDE_CONFIG_DIR`, `GEMINI_CLI_HOME`, `HOME`; trust65) where the user's home
 * guards it and the other does not: the one rule is that the nested agent loads loopguard's hooks
 * wherever the agent the user would start there does.
 */

/** What the model is told when such a call is refused: why, and what to do instead. */
export const UNHOOKED_AGENT_REFUSED =
  'loopguard refused this call: it starts an agent with its hooks off (`--disable hooks`, `--bare`, `--safe-mode`, `--restricted`, `--setting-sources`), whose tool calls loopguard would not guard; start it without that option, and its hooks guard it too.';

/** What the model is told when it starts an agent with another home that holds none of loopguard's hooks (trust65). */
export const UNHOOKED_HOME_REFUSED =
  "loopguard refused this call: it starts an agent with another home (`CODEX_HOME`, `CLAUDE_CONFIG_DIR`, `GEMINI_CLI_HOME`, `HOME`) that holds none of loopguard's hooks, whose tool calls loopguard would not guard; start it with the user's own home, and its hooks guard it too.";

/** The agents' programs, by name or by package (`npx @openai/codex`). */
const CODEX = /^(?:codex|@openai\/codex(?:@\S*)?)$/;
const CLAUDE = /^(?:claude|@anthropic-ai\/claude-code(?:@\S*)?)$/;
const GEMINI = /^(?:gemini|@google\/gemini-cli(?:@\S*)?)$/;
type Agent = 'codex' | 'claude' | 'gemini';

/** What may stand before the agent's program: assignments, wrappers, a package runner and their options. */
const LAUNCHER =
  /^(?:\w+=\S*|env|exec|command|nohup|time|sudo|timeout|\d+[smh]?|npx|bunx|pnpm|yarn|dlx|-\S*)$/;

/** Codex's features that run its hooks (`hooks`, and `codex_hooks`, its legacy alias). */
const HOOKS_FEATURE = /^(?:codex_)?hooks$/;

/** Claude Code's options that start it without the hooks of its settings files. */
const CLAUDE_UNHOOKED = /^--(?:bare|safe-mode|restricted)$/;

/** Claude Code's setting sources: a list that leaves one out skips the hooks it holds. */
const SETTING_SOURCES = ['user', 'project', 'local'];

/** The environment that starts Claude Code as `--bare` or `--safe-mode` do, set to anything but off. */
const UNHOOKED_ENV = /\bCLAUDE_CODE_(?:SIMPLE|SAFE_MODE)=(?!(?:0|false)?(?:\s|$))/;

/** Whether the words after an agent's program start it with its hooks off. */
function unhooked(agent: Agent, args: string[]): boolean {
  return args.some((word, index) => {
    const [flag, inline] = word.split(/=(.*)/s) as [string, string | undefined];
    const value = inline ?? args[index + 1] ?? '';
    if (agent === 'gemini') return false;
    if (agent === 'codex')
      return (flag === '--disable' && HOOKS_FEATURE.test(value)) || word === '--ignore-user-config';
    if (CLAUDE_UNHOOKED.test(word)) return true;
    if (flag !== '--setting-sources') return false;
    const sources = value.split(',').map((source) => source.trim());
    return SETTING_SOURCES.some((source) => !sources.includes(source));
  });
}

/** The variables that place an agent's home, and an assignment of one (`export CODEX_HOME=…`). */
const HOME_VARIABLES = new Set(['CODEX_HOME', 'CLAUDE_CONFIG_DIR', 'GEMINI_CLI_HOME', 'HOME']);
const ASSIGNMENT = /^(\w+)=(.*)$/s;

/**
 * The folder the agent reads its hooks from (and, for Codex and Gemini CLI, its trust in the
 * project), as it places it from `vars`; `undefined` when a value is not plain (`$(mktemp -d)`).
 */
function agentFolder(
  agent: Agent,
  vars: Record<string, string | undefined>,
  projectDir: string,
): string | undefined {
  const home = vars.HOME ?? '~';
  const value =
    agent === 'codex'
      ? (vars.CODEX_HOME ?? `${home}/.codex`)
      : agent === 'claude'
        ? (vars.CLAUDE_CONFIG_DIR ?? `${home}/.claude`)
        : `${vars.GEMINI_CLI_HOME ?? home}/.gemini`;
  const path = value.replace(/^~(?=\/|$)/, home).replace(/\$\{HOME\}|\$HOME\b/g, home);
  if (/[$`~*?]/.test(path)) return undefined;
  return isAbsolute(path) ? path : resolve(projectDir, path);
}

/**
 * Whether the agent started with `vars` loads loopguard's hooks: its home's (or the project's, in
 * a project that home trusts: `folderHoldsHooks`), or, for Claude Code, the project's own settings,
 * which it reads whatever its home.
 */
function guarded(agent: Agent, vars: Record<string, string | undefined>, projectDir: string): boolean {
  const folder = agentFolder(agent, vars, projectDir);
  if (folder !== undefined && folderHoldsHooks(folder, projectDir)) return true;
  return agent === 'claude' && folderHoldsHooks(join(projectDir, '.claude'), projectDir);
}

/**
 * Whether the agent started in `segment` with the homes `assigned` (by this command) reads
 * another home than the user's, where the user's guards it and the other does not.
 */
function otherHome(
  agent: Agent,
  assigned: Record<string, string>,
  env: Record<string, string | undefined>,
  projectDir: string,
): boolean {
  if (Object.keys(assigned).length === 0) return false;
  const vars = { ...env, ...assigned };
  const own = agentFolder(agent, env, projectDir);
  const other = agentFolder(agent, vars, projectDir);
  if (other !== undefined && other === own) return false;
  return guarded(agent, env, projectDir) && !guarded(agent, vars, projectDir);
}

/**
 * Why the call is refused, or `undefined`: one of its shell commands starts Codex, Claude Code or
 * Gemini CLI with its hooks off (see the file's comment).
 * @param env - the agent's environment, where the nested agent's home is placed without an
 *   assignment (default: this process's, a child of the agent).
 * @example unhookedAgentRefusal({ kind: 'before_tool', tool: 'Bash', input: { command: 'codex exec --disable hooks "fix it"' }, ... }); // UNHOOKED_AGENT_REFUSED
 */
export function unhookedAgentRefusal(
  event: HookEvent,
  env: Record<string, string | undefined> = process.env,
): string | undefined {
  const call = beforeToolCall(event);
  if (call === undefined) return undefined;
  const input = call.input;
  for (const field of ['command', 'cmd']) {
    const value = input[field];
    const command = Array.isArray(value) ? value.join(' ') : value;
    if (typeof command !== 'string' || !/codex|claude|gemini/.test(command)) continue;
    if (UNHOOKED_ENV.test(command)) return UNHOOKED_AGENT_REFUSED;
    // the homes this command sets: for the rest of it (`export`, a bare assignment) or one program
    const exported: Record<string, string> = {};
    for (const segment of shellSegments(command)) {
      const words = shellWords(segment);
      const assigned = { ...exported };
      let at = 0;
      while (at < words.length && LAUNCHER.test(words[at] as string)) {
        const [, name, value] = ASSIGNMENT.exec(words[at] as string) ?? [];
        if (name !== undefined && HOME_VARIABLES.has(name)) assigned[name] = value as string;
        at++;
      }
      if (words[at] === 'export' || at === words.length) {
        for (const word of words.slice(at)) {
          const [, name, value] = ASSIGNMENT.exec(word) ?? [];
          if (name !== undefined && HOME_VARIABLES.has(name)) exported[name] = value as string;
        }
        Object.assign(exported, assigned);
        continue;
      }
      const word = words[at] as string;
      const name = word.split('/').pop() as string;
      const agent = [CODEX, CLAUDE, GEMINI].findIndex((pattern) => pattern.test(name) || pattern.test(word));
      if (agent === -1) continue;
      const which = (['codex', 'claude', 'gemini'] as const)[agent] as Agent;
      if (unhooked(which, words.slice(at + 1))) return UNHOOKED_AGENT_REFUSED;
      if (otherHome(which, assigned, env, event.projectDir)) return UNHOOKED_HOME_REFUSED;
    }
  }
  return undefined;
}
