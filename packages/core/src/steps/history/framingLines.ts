/**
 * The lines an agent writes around a command's output, which the command never printed: Claude
 * Code's sentence for a `Bash` call that printed nothing, SWE-agent's for any command that printed
 * nothing (with the open file, directory and prompt lines of its 0.x template), OpenHands' exit code
 * and context lines (of its shell and of its IPython cells) and its sentence for a cell that printed
 * nothing.
 * An output made only of them (or of nothing) is a silent success, whatever agent ran the command:
 * Gemini CLI (its displayed output), Codex and the corpora's SWE-agent and mini-swe-agent runs hand
 * the detector `''` for the same command. One list, read by the detector without knowing which
 * agent spoke; an agent whose framing is not here reads as before (its framing is a line seen again).
 */
const FRAMING_LINE = new RegExp(
  `^(?:${[
    // Claude Code: its Bash result when stdout and stderr are empty (`CLAUDE_NO_OUTPUT` of its translation)
    String.raw`\(Bash completed with no output\)`,
    // SWE-agent: `next_step_no_output_template` (1.x default and 0.x), then 0.x's context lines and prompt
    String.raw`Your command ran successfully and did not produce any output\.`,
    String.raw`\(Open file: [^)]*\)`,
    String.raw`\(Current directory: [^)]*\)`,
    String.raw`bash-\$`,
    // OpenHands' `execute_bash`: the metadata lines after every command's output
    String.raw`\[The command completed with exit code -?\d+\.\]`,
    String.raw`\[Command finished with exit code -?\d+\]`,
    String.raw`\[Current working directory: [^\]]*\]`,
    String.raw`\[Python interpreter: [^\]]*\]`,
    // OpenHands' `execute_ipython_cell`: a cell that printed nothing, and the lines after every cell
    String.raw`\[Code executed successfully with no output\]`,
    String.raw`\[Jupyter current working directory: [^\]]*\]`,
    String.raw`\[Jupyter Python interpreter: [^\]]*\]`,
  ].join('|')})$`,
);

/** The longest output read for framing only (four OpenHands lines with long paths, and a margin). */
const FRAMING_MAX = 1_200;

/** The first non-blank character of an output. */
const FIRST_MARK = /\S/;

/**
 * Whether `output` holds no line beyond the agent's framing: empty, blank, or only the lines an
 * agent adds around a command's output (see {@link FRAMING_LINE}).
 * @example isFramingOnly('(Bash completed with no output)'); // true
 * @example isFramingOnly('\n[The command completed with exit code 0.]\n[Current working directory: /w]'); // true
 * @example isFramingOnly('ok\n[The command completed with exit code 0.]'); // false
 */
export function isFramingOnly(output: string): boolean {
  if (output.length > FRAMING_MAX) return false;
  const first = FIRST_MARK.exec(output)?.[0];
  // Most outputs are ruled out by their first character, before any line is cut.
  if (first === undefined) return true;
  if (first !== '(' && first !== '[' && first !== 'Y') return false;
  // Line by line, the first line that is not framing ends the look (no array of lines is made).
  for (let start = 0; start <= output.length; ) {
    const newline = output.indexOf('\n', start);
    const end = newline === -1 ? output.length : newline;
    const text = output.slice(start, end).trim();
    if (text !== '' && !FRAMING_LINE.test(text)) return false;
    start = end + 1;
  }
  return true;
}
