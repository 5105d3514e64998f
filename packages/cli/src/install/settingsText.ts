import { stripComments } from 'jsonc-parser';
import { CLI_NAMES, type HookAgent } from '../hook/hookEvent.js';
import { type JsonText, parseJsonText } from './jsonText.js';

/** A settings file that its CLI would not read, or that `loopguard init` cannot edit safely. */
export class InvalidSettingsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidSettingsError';
  }
}

/**
 * What each pinned CLI reads in its settings file, checked with the CLIs themselves (see
 * docs/hooks.md): Claude Code 2.1.330 reads a file with a UTF-8 byte order mark but no comments;
 * Gemini CLI 0.61.0 reads `//` and `/* *\/` comments (strip-json-comments, then `JSON.parse`) but
 * refuses a byte order mark. Neither reads a trailing comma.
 */
const DIALECTS: Record<HookAgent, { comments: boolean; bom: boolean }> = {
  claude: { comments: false, bom: true },
  gemini: { comments: true, bom: false },
  // Codex 0.169.0 reads its hooks.json as plain JSON
  codex: { comments: false, bom: false },
};

const BOM = '\uFEFF';

/** A settings file's text: its byte order mark, if any, and the JSON after it. */
export interface SettingsText {
  /** The byte order mark the file starts with, kept when it is written back ('' when none). */
  readonly bom: string;
  /** The JSON after it, with the offsets of every value. */
  readonly json: JsonText;
  /** Whether the JSON may hold comments (Gemini CLI's). */
  readonly comments: boolean;
}

/**
 * Reads the text of `agent`'s settings file as that CLI reads it.
 * @throws InvalidSettingsError when the CLI itself would not read it, or its root is not an object
 */
export function readSettingsText(text: string, agent: HookAgent): SettingsText {
  const dialect = DIALECTS[agent];
  const bom = text.startsWith(BOM) ? BOM : '';
  if (bom !== '' && !dialect.bom) {
    throw new InvalidSettingsError(
      `starts with a byte order mark, which ${CLI_NAMES[agent]} cannot read: save it as UTF-8 without one`,
    );
  }
  const body = text.slice(bom.length);
  if (body.trim() !== '') {
    try {
      JSON.parse(dialect.comments ? stripComments(body) : body);
    } catch {
      const comments =
        !dialect.comments && hasComments(body) ? `; ${CLI_NAMES[agent]} reads no comments` : '';
      throw new InvalidSettingsError(`is not valid JSON (${syntaxError(body, dialect.comments)}${comments})`);
    }
  }
  let json: JsonText;
  try {
    json = parseJsonText(body, dialect.comments);
  } catch (error) {
    throw new InvalidSettingsError(`is not valid JSON (${(error as Error).message})`);
  }
  if (json.root.type !== 'object') throw new InvalidSettingsError('must hold a JSON object');
  return { bom, json, comments: dialect.comments };
}

/** `settings` with its JSON replaced by `text`, parsed the same way. */
export function withText(settings: SettingsText, text: string): SettingsText {
  return { ...settings, json: parseJsonText(text, settings.comments) };
}

/** The file's whole text: the byte order mark it had, then the JSON. */
export function settingsFileText(settings: SettingsText): string {
  return `${settings.bom}${settings.json.text}`;
}

/**
 * The first syntax error and its line, never V8's message: it quotes the text around the error,
 * and a project's settings file may be a repository's link to the user's credentials.
 */
function syntaxError(text: string, comments: boolean): string {
  try {
    parseJsonText(text, comments);
  } catch (error) {
    return (error as Error).message;
  }
  return 'JSON.parse refuses it';
}

function hasComments(text: string): boolean {
  try {
    parseJsonText(text, true);
    return true;
  } catch {
    return false;
  }
}
