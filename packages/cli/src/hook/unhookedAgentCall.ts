import { shellSegments } from '@loopguard/core/internal';
import type { HookEvent } from './hookEvent.js';
import { shellWords } from './shellWords.js';

/**
 * An agent the model starts with its hooks off (trust64): `codex exec --disable hooks` (Codex
 * 0.169.0: "Equivalent to `-c features.hooks=false`", which `ownStateCall.ts` refuses already),
 * Claude Code's `--bare` ("skip hooks"), `--safe-mode` (hooks disabled), `--restricted` and a
 * `--setting-sources` that leaves a source out (the settings files that hold loopguard's hooks
 * are not read), or `CLAUDE_CODE_SIMPLE` / `CLAUDE_CODE_SAFE_MODE` set (what the two flags set).
 * The nested agent would run its tool calls where loopguard sees none of them: a switch the model
 * flips, as its settings' switches are. Gemini CLI 0.61.0 has no option that skips its hooks.
 */

/** What the model is told when such a call is refused: why, and what to do instead. */
export const UNHOOKED_AGENT_REFUSED =
  'loopguard refused this call: it starts an agent with its hooks off (`--disable hooks`, `--bare`, `--safe-mode`, `--restricted`, `--setting-sources`), whose tool calls loopguard would not guard; start it without that option, and its hooks guard it too.';

/** The agents' programs, by name or by package (`npx @openai/codex`). */
const CODEX = /^(?:codex|@openai\/codex(?:@\S*)?)$/;
const CLAUDE = /^(?:claude|@anthropic-ai\/claude-code(?:@\S*)?)$/;

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
function unhooked(agent: 'codex' | 'claude', args: string[]): boolean {
  return args.some((word, index) => {
    const [flag, inline] = word.split(/=(.*)/s) as [string, string | undefined];
    const value = inline ?? args[index + 1] ?? '';
    if (agent === 'codex') return flag === '--disable' && HOOKS_FEATURE.test(value);
    if (CLAUDE_UNHOOKED.test(word)) return true;
    if (flag !== '--setting-sources') return false;
    const sources = value.split(',').map((source) => source.trim());
    return SETTING_SOURCES.some((source) => !sources.includes(source));
  });
}

/**
 * Why the call is refused, or `undefined`: one of its shell commands starts Codex or Claude Code
 * with its hooks off (see the file's comment).
 * @example unhookedAgentRefusal({ kind: 'before_tool', tool: 'Bash', input: { command: 'codex exec --disable hooks "fix it"' }, ... }); // UNHOOKED_AGENT_REFUSED
 */
export function unhookedAgentRefusal(event: HookEvent): string | undefined {
  if (event.kind !== 'before_tool' || typeof event.input !== 'object' || event.input === null)
    return undefined;
  const input = event.input as Record<string, unknown>;
  for (const field of ['command', 'cmd']) {
    const value = input[field];
    const command = Array.isArray(value) ? value.join(' ') : value;
    if (typeof command !== 'string' || !/codex|claude/.test(command)) continue;
    if (UNHOOKED_ENV.test(command)) return UNHOOKED_AGENT_REFUSED;
    for (const segment of shellSegments(command)) {
      const words = shellWords(segment);
      let at = 0;
      while (at < words.length && LAUNCHER.test(words[at] as string)) at++;
      const name = (words[at] ?? '').split('/').pop() as string;
      if (
        !CODEX.test(name) &&
        !CLAUDE.test(name) &&
        !CODEX.test(words[at] ?? '') &&
        !CLAUDE.test(words[at] ?? '')
      )
        continue;
      const word = words[at] as string;
      const agent = CODEX.test(word) || CODEX.test(name) ? 'codex' : 'claude';
      if (unhooked(agent, words.slice(at + 1))) return UNHOOKED_AGENT_REFUSED;
    }
  }
  return undefined;
}
