import { basename, dirname, join } from 'node:path';

/** The name of the folder Gemini CLI files a chat under (`tmp/<name>/chats/`), or `undefined`. */
export function geminiFolder(file: string): string | undefined {
  const chats = dirname(file);
  return basename(chats) === 'chats' ? basename(dirname(chats)) : undefined;
}

/**
 * The file where Gemini CLI (0.61.0) keeps a chat's project (`tmp/<name>/.project_root`), for a file
 * in a `chats` folder; `undefined` for any other. A chat's report reads it besides the chat.
 */
export function geminiProjectRootFile(file: string): string | undefined {
  return geminiFolder(file) === undefined ? undefined : join(dirname(dirname(file)), '.project_root');
}
