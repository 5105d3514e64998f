import { existsSync, lstatSync, readSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { withRegularFile } from './regularFile.js';

/** The configuration files loopguard reads from a project directory, first found wins. */
export const CONFIG_FILES = [
  'loopguard.config.json',
  'loopguard.config.yaml',
  'loopguard.config.yml',
] as const;

/**
 * The project's configuration file (the first of {@link CONFIG_FILES} there), or `undefined`. A file
 * that is not this user's (nor root's, who can write any file) is passed over wherever it is, and
 * so is a link to one and a file every user can write: another user could speak for loopguard
 * through it, to switch it off (`hook.enabled: false`) for a session started in that folder, or to
 * point `status` at a PostgreSQL server of hers (`serve.postgres`, which node-postgres sends the
 * user's `PGPASSWORD`). In `/tmp` (trust52), as in a folder her group writes or her own project
 * (trust62: git passes over a repository another user owns, for the same reason).
 */
export function findConfigFile(projectDir: string): string | undefined {
  return CONFIG_FILES.map((name) => join(projectDir, name)).find(
    (path) => existsSync(path) && !anotherUsers(path),
  );
}

/**
 * The configuration file {@link findConfigFile} passed over in `projectDir` (another user's), when
 * it found none to read; else `undefined`. The doors that say what the project changes in the
 * guard name it, so the user whose file it is (or who wonders why `/tmp/loopguard.config.json`
 * does nothing) learns why it is not read (trust53).
 */
export function passedOverConfigFile(projectDir: string): string | undefined {
  if (findConfigFile(projectDir) !== undefined) return undefined;
  return CONFIG_FILES.map((name) => join(projectDir, name)).find(
    (path) => existsSync(path) && anotherUsers(path),
  );
}

/**
 * Whether another user could write `path`: it, or the file it links to, is neither this user's
 * nor root's, or every user can write the file. Where there are no user ids (Windows): `false`.
 */
function anotherUsers(path: string): boolean {
  const uid = process.getuid?.();
  const link = lstatSync(path, { throwIfNoEntry: false });
  const file = statSync(path, { throwIfNoEntry: false });
  if (uid === undefined || link === undefined) return false;
  const others = (owner: number) => owner !== uid && owner !== 0;
  return others(link.uid) || (file !== undefined && (others(file.uid) || (file.mode & 0o002) !== 0));
}

/**
 * A configuration file's text as data: JSON for `.json`, else YAML. `yaml` is required on first use
 * and left out of the hook's bundles (a third of the startup snapshot's source, which each call
 * would load for the few projects that need it); the status line starts without it too.
 * @throws Error naming the syntax error and its line, never the text around it: the file may be a
 * repository's link to the user's credentials, and the message goes to `hook.log` and the terminal.
 */
export function parseConfigText(file: string, text: string): unknown {
  const require = createRequire(import.meta.url);
  if (file.endsWith('.json')) {
    try {
      return JSON.parse(text);
    } catch {
      // V8 quotes the text around the error from Node 21 on: named by jsonc-parser instead
      const { parseTree, printParseErrorCode } = require('jsonc-parser') as typeof import('jsonc-parser');
      const errors: import('jsonc-parser').ParseError[] = [];
      parseTree(text, errors, { disallowComments: true, allowTrailingComma: false });
      const first = errors[0];
      const line = first === undefined ? '' : ` at line ${text.slice(0, first.offset).split('\n').length}`;
      throw new Error(
        `not valid JSON: ${first === undefined ? 'JSON.parse refuses it' : printParseErrorCode(first.error)}${line}`,
      );
    }
  }
  const yaml = require('yaml') as typeof import('yaml');
  try {
    return yaml.parse(text);
  } catch (error) {
    if (!(error instanceof yaml.YAMLError)) throw error;
    const at = error.linePos?.[0];
    // the code, not the message: some messages quote the text (an alias's name, a tag)
    const name = error.code.toLowerCase().replaceAll('_', ' ');
    throw new Error(
      `not valid YAML: ${name}${at === undefined ? '' : ` at line ${at.line}, column ${at.col}`}`,
    );
  }
}

/**
 * The bytes of a configuration file, which must be a regular file ({@link withRegularFile}: a FIFO
 * the model makes in its place fails the call open instead of blocking it) of at most
 * {@link MAX_CONFIG_BYTES}.
 * @throws Error naming the file when it is not a regular file, is larger, or cannot be read.
 */
export function readConfigFile(file: string): Buffer {
  return withRegularFile(file, 'config', (fd) => readBounded(fd, file));
}

/**
 * The most a configuration file may hold, bytes (64 KiB): one is a few hundred bytes, a long price
 * table a few kilobytes. A larger file is refused unread, so that a repository's file (or its link
 * to `/proc/self/pagemap`, a "regular" file of size 0 that reads as gigabytes) cannot make every
 * hook call, `status` and the dashboard read it whole, nor parse it: YAML's parser takes seconds
 * from a few hundred kilobytes on (its duplicate-key check grows with the square of the keys), and
 * `status` and the dashboard parse the file at each look (trust49).
 */
export const MAX_CONFIG_BYTES = 64 * 1024;

/** `fd`'s bytes, at most {@link MAX_CONFIG_BYTES}; read to its end, as `/proc` tells no size. */
function readBounded(fd: number, file: string): Buffer {
  const chunks: Buffer[] = [];
  let length = 0;
  for (;;) {
    const chunk = Buffer.allocUnsafe(64 * 1024);
    const read = readSync(fd, chunk, 0, chunk.length, null);
    if (read === 0) return Buffer.concat(chunks, length);
    chunks.push(chunk.subarray(0, read));
    length += read;
    if (length > MAX_CONFIG_BYTES)
      throw new Error(`config ${file} is larger than 64 KiB, more than a configuration holds`);
  }
}

/**
 * {@link readConfigFile}'s bytes, and the file's identity on this machine: its device, inode and
 * change time (set by the kernel at each write, rename or change of mode: an archive or a copy
 * cannot carry it, nor name it in advance).
 * @throws as {@link readConfigFile}.
 */
export function readConfigFileHere(file: string): { bytes: Buffer; identity: string } {
  return withRegularFile(file, 'config', (fd, stat) => ({
    bytes: readBounded(fd, file),
    identity: `${stat.dev}:${stat.ino}:${stat.ctimeMs}`,
  }));
}
