import { basename, dirname, join } from 'node:path';

/**
 * The `chats` folder a Gemini CLI chat is in: `tmp/<name>/chats/` for a session's chat, or
 * `tmp/<name>/chats/<session id>/` for a subagent's (0.61.0 files a subagent's chat under its
 * session's); `undefined` for any other file.
 */
function chatsFolder(file: string): string | undefined {
  const parent = dirname(file);
  if (basename(parent) === 'chats') return parent;
  const above = dirname(parent);
  return basename(above) === 'chats' ? above : undefined;
}

/** The name of the folder Gemini CLI files a chat under (`tmp/<name>/chats/`), or `undefined`. */
export function geminiFolder(file: string): string | undefined {
  const chats = chatsFolder(file);
  return chats === undefined ? undefined : basename(dirname(chats));
}

/**
 * The session a Gemini CLI subagent's chat belongs to: the folder it is filed in
 * (`chats/<session id>/<agent id>.jsonl`); `undefined` for a session's own chat.
 */
export function geminiParentSession(file: string): string | undefined {
  const parent = dirname(file);
  return basename(dirname(parent)) === 'chats' ? basename(parent) : undefined;
}

/**
 * The file where Gemini CLI (0.61.0) keeps a chat's project (`tmp/<name>/.project_root`), for a file
 * in a `chats` folder; `undefined` for any other. A chat's report reads it besides the chat.
 */
export function geminiProjectRootFile(file: string): string | undefined {
  const chats = chatsFolder(file);
  return chats === undefined ? undefined : join(dirname(chats), '.project_root');
}
