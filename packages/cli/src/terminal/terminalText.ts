/**
 * C0 and C1 control characters and DEL: every terminal escape sequence starts with one (ESC, the
 * 8-bit CSI, BEL ending an OSC). Line feeds and tabs too: callers that keep lines split first.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what it matches
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/g;

/**
 * `text` with its control characters shown as U+FFFD, for a door that prints text it did not
 * write (a command, a tool's result, a path, a file name) to the user's terminal: an escape
 * sequence in a transcript must not set the window's title, write the clipboard (OSC 52), clear
 * the screen or hide what loopguard says.
 * @example printable('npm test \u001b[2J') // 'npm test \uFFFD[2J'
 */
export function printable(text: string): string {
  return text.replace(CONTROL_CHARACTERS, '\uFFFD');
}
