import { basename } from 'node:path';
import { DEFAULT_EXEMPT_COMMANDS, DEFAULT_EXEMPT_TOOLS } from '@loopguard/core/steps';
import { findConfigFile } from '../configFiles.js';
import { gitTracks } from '../gitTracks.js';
import { pricesBelowLibrary } from './cheaperPrices.js';
import { checkedHookConfigNow } from './checkedHookConfig.js';

/**
 * What the project's configuration exempts from the guard beyond the defaults, read now, in the
 * words `status` and the dashboard print: `exempt in this project: commands matching "^npm " and
 * the tools "Edit" (from /repo/loopguard.config.yaml, which git tracks: it came with the
 * repository): loopguard judges none of these calls`. A cloned repository's `hook.exemptCommands`
 * and `hook.exemptTools` narrow what is guarded as surely as `hook.enabled: false` switches it off,
 * so a door says them and where they came from (trust52). Each pattern and tool is quoted as JSON
 * (a control character in the file is shown escaped, never sent to the terminal). `undefined` with
 * no exemption of the project's own (the default polling commands and tools are not listed), and
 * where the hooks are off or fail open on the file (those are said instead). Reads only; asks git
 * only where there is something to say.
 * @example projectExemptions('/repo') // undefined without a configuration file
 */
export function projectExemptions(project: string): string | undefined {
  const file = findConfigFile(project);
  if (file === undefined) return undefined;
  let config: ReturnType<typeof checkedHookConfigNow>;
  try {
    config = checkedHookConfigNow(project);
  } catch {
    return undefined; // the hooks fail open on it: `projectUnguarded` says so
  }
  if (!config.enabled) return undefined;
  const commands = (config.detector.exemptCommands ?? [])
    .slice(DEFAULT_EXEMPT_COMMANDS.length)
    .map((pattern) => pattern.source);
  const tools = (config.detector.exemptTools ?? []).filter((tool) => !DEFAULT_EXEMPT_TOOLS.includes(tool));
  const quoted = (names: readonly string[]) => names.map((name) => JSON.stringify(name)).join(', ');
  const what = [
    commands.length === 0 ? '' : `commands matching ${quoted(commands)}`,
    tools.length === 0 ? '' : `${tools.length === 1 ? 'the tool' : 'the tools'} ${quoted(tools)}`,
  ].filter((part) => part !== '');
  if (what.length === 0) return undefined;
  return `exempt in this project: ${what.join(' and ')} (${cameFrom(file, project)}): loopguard judges none of these calls`;
}

/**
 * The models the project's `spend.prices` prices below the pricing library, read now, in the words
 * `status` prints after `spend: `: `prices in this project below the pricing library's:
 * "claude-sonnet-4-5" input $0.00 (the library: $3.00), … a million tokens (from
 * /repo/loopguard.config.yaml, which git tracks: it came with the repository): every budget in
 * dollars counts these replies at them` ({@link pricesBelowLibrary}). `undefined` without such a
 * price, and where the file cannot be used (the hooks fail open on it: that is said instead).
 */
export function projectCheaperPrices(project: string): string | undefined {
  const file = findConfigFile(project);
  if (file === undefined) return undefined;
  let below: string | undefined;
  try {
    below = pricesBelowLibrary(checkedHookConfigNow(project).prices);
  } catch {
    return undefined;
  }
  return below === undefined
    ? undefined
    : `prices in this project below the pricing library's: ${below} (${cameFrom(file, project)}): every budget in dollars counts these replies at them`;
}

/** `from <file>`, and `, which git tracks: it came with the repository` when git tracks it. */
function cameFrom(file: string, project: string): string {
  const tracked = gitTracks(basename(file), project) ? ', which git tracks: it came with the repository' : '';
  return `from ${file}${tracked}`;
}
