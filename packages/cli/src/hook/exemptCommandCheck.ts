import { createRequire } from 'node:module';
import { SHELL_TOOLS } from '@loopguard/core/steps';

/** The longest `hook.exemptCommands` source taken, characters: a polling command's pattern is a line. */
export const MAX_EXEMPT_COMMAND_CHARS = 256;

/**
 * Commands no exemption of polling commands matches: a pattern that matches one of them (the empty
 * text, one letter, a bare `ls`, two words) exempts every command, the way `hook.enabled: false`
 * switches the hooks off (`.`, `^`, `\w`, `\s`).
 */
const ORDINARY_COMMANDS = ['', 'x', 'ls', 'git status'];

/**
 * The text the detector matches for a call of a tool that is not the shell: its input as JSON
 * (core's `actionText`; a shell's command is matched as typed). A pattern that matches any input
 * object (`"`, `^\{`, `\}$`, `:`) exempts every Read, Edit, Write and MCP call of every agent
 * (trust52), the way exempting the editing tools by name would, all at once.
 */
const ANY_TOOL_INPUTS = ['{}', '{"x":"x"}'];

/**
 * Why a project's `hook.exemptCommands` source cannot be taken, or `undefined` when it can. The
 * hook runs each pattern on every command the model types (up to 16 KiB): a repository's file is
 * input, and two of its patterns are an off switch nobody sees (trust51):
 * - one whose time can grow faster than the command's length (repetitions that can match the same
 *   text more than one way: `(a+)+$`, `.*.*=`), found by `scslre` (the analysis behind
 *   eslint-plugin-regexp's super-linear backtracking rules), with counted repetitions (`{20}`) judged
 *   as unbounded ones, since 2^20 tries a start is as bad in practice;
 * - one that exempts every command: it matches the empty text or an ordinary command (`x`,
 *   `ls`, `git status`; tried only once the pattern is known to run in linear time);
 * - one that exempts every call of a tool other than the shell: it matches any tool's input as the
 *   detector reads it (`{}`, `{"x":"x"}`: JSON), trust52.
 * `scslre` and its parser are loaded on first use: most projects set no exemption.
 * @example exemptCommandProblem('.') // 'exempts every command (it matches "ls") …'
 */
export function exemptCommandProblem(source: string): string | undefined {
  if (source.length > MAX_EXEMPT_COMMAND_CHARS)
    return `is longer than ${MAX_EXEMPT_COMMAND_CHARS} characters, more than a polling command's pattern holds`;
  let pattern: RegExp;
  try {
    pattern = new RegExp(source);
  } catch (error) {
    return `is not a regular expression: ${(error as Error).message}`;
  }
  if (backtracks(pattern))
    return "can take time that grows faster than the command's length (repetitions that can match the same text in more than one way): the hook runs it on every command";
  const ordinary = ORDINARY_COMMANDS.find((command) => pattern.test(command));
  if (ordinary !== undefined)
    return `exempts every command (it matches ${JSON.stringify(ordinary)}): name the polling command it exempts, such as ^make watch`;
  const input = ANY_TOOL_INPUTS.find((text) => pattern.test(text));
  if (input !== undefined)
    return `exempts every call of a tool other than the shell (it matches ${JSON.stringify(input)}, the form a tool's input is matched in): name the polling command it exempts, such as ^make watch`;
  return undefined;
}

type Regexpp = typeof import('@eslint-community/regexpp');
type Scslre = typeof import('scslre');

/** Whether `scslre` finds super-linear backtracking in `pattern`, counted repetitions taken as unbounded. */
function backtracks(pattern: RegExp): boolean {
  const require = createRequire(import.meta.url);
  const { RegExpParser, visitRegExpAST } = require('@eslint-community/regexpp') as Regexpp;
  const { analyse } = require('scslre') as Scslre;
  const parser = new RegExpParser();
  let literal = String(pattern);
  const counted: { from: number; to: number; text: string }[] = [];
  visitRegExpAST(parser.parseLiteral(literal), {
    onQuantifierEnter(node) {
      const from = node.element.end;
      const quantifier = literal.slice(from, node.end);
      if (!/^[*+?]\??$/.test(quantifier))
        counted.push({ from, to: node.end, text: `${node.min === 0 ? '*' : '+'}${node.greedy ? '' : '?'}` });
    },
  });
  // from the last: each replacement leaves the places before it as they were
  for (const { from, to, text } of counted.sort((a, b) => b.from - a.from))
    literal = `${literal.slice(0, from)}${text}${literal.slice(to)}`;
  return analyse(parser.parseLiteral(literal), { maxReports: 1 }).reports.length > 0;
}

/**
 * Why a project's `hook.exemptTools` entry cannot be taken, or `undefined` when it can: the agents'
 * shell tools (`Bash`, `run_shell_command`, `shell`, ...: core's `SHELL_TOOLS`, in any case) run
 * every command, so exempting one exempts every command, as `exemptCommands: ["."]` would (trust51).
 * @example exemptToolProblem('Bash') // `is the agent's shell: …`
 */
export function exemptToolProblem(tool: string): string | undefined {
  return SHELL_TOOLS.has(tool.toLowerCase())
    ? "is the agent's shell: exempting it exempts every command (exempt the polling commands instead: exemptCommands)"
    : undefined;
}
