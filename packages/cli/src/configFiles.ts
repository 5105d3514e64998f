import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { withRegularFile } from './regularFile.js';

/** The configuration files loopguard reads from a project directory, first found wins. */
export const CONFIG_FILES = [
  'loopguard.config.json',
  'loopguard.config.yaml',
  'loopguard.config.yml',
] as const;

/** The project's configuration file (the first of {@link CONFIG_FILES} there), or `undefined`. */
export function findConfigFile(projectDir: string): string | undefined {
  return CONFIG_FILES.map((name) => join(projectDir, name)).find((path) => existsSync(path));
}

/**
 * A configuration file's text as data: JSON for `.json`, else YAML. `yaml` is required on first use
 * and left out of the hook's bundles (a third of the startup snapshot's source, which each call
 * would load for the few projects that need it); the status line starts without it too.
 * @throws on a file that is not valid JSON or YAML.
 */
export function parseConfigText(file: string, text: string): unknown {
  if (file.endsWith('.json')) return JSON.parse(text);
  return (createRequire(import.meta.url)('yaml') as typeof import('yaml')).parse(text);
}

/**
 * The bytes of a configuration file, which must be a regular file ({@link withRegularFile}: a FIFO
 * the model makes in its place fails the call open instead of blocking it).
 * @throws Error naming the file when it is not a regular file, or when it cannot be read.
 */
export function readConfigFile(file: string): Buffer {
  return withRegularFile(file, 'config', (fd) => readFileSync(fd));
}
