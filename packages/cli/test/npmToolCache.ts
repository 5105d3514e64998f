import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';

/** The shared cache of agent CLIs the offline tests run (one directory per package and version). */
export const TOOL_CACHE = join(homedir(), '.cache', 'loopguard-test');

/**
 * Installs `pkg@version` on demand from the npm registry into `~/.cache/loopguard-test/<dir>` (not a
 * workspace dependency: these CLIs ship native binaries of hundreds of MB) and returns the first of
 * `binaries` (paths inside its `node_modules`) that exists, after checking that `<binary> --version`
 * runs. Throws with npm's output when the install fails.
 */
export async function ensureCachedTool(
  pkg: string,
  version: string,
  dir: string,
  binaries: readonly string[],
): Promise<string> {
  const root = join(TOOL_CACHE, dir);
  const candidates = binaries.map((binary) => join(root, 'node_modules', binary));
  const found = () => candidates.find((path) => existsSync(path));
  if (found() === undefined) {
    mkdirSync(root, { recursive: true });
    writeFileSync(join(root, 'package.json'), `{ "name": "loopguard-test-${dir}", "private": true }\n`);
    const install = await execa(
      'npm',
      ['install', '--no-audit', '--no-fund', '--loglevel=error', `${pkg}@${version}`],
      { cwd: root, reject: false, all: true },
    );
    if (install.exitCode !== 0) {
      throw new Error(
        `npm install ${pkg}@${version} into ${root} failed (exit ${install.exitCode}):\n${install.all}`,
      );
    }
  }
  const binary = found();
  if (binary === undefined)
    throw new Error(`${pkg} installed into ${root} but no binary at ${candidates.join(' or ')}`);
  const check = await execa(binary, ['--version'], { reject: false, all: true });
  if (check.exitCode !== 0)
    throw new Error(`${binary} --version failed (exit ${check.exitCode}): ${check.all}`);
  return binary;
}
