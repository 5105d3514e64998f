import { basename } from 'node:path';
import { findConfigFile, passedOverConfigFile } from '../files/configFiles.js';
import { gitTracks } from '../files/gitTracks.js';
import { pricesBelowLibrary } from './cheaperPrices.js';
import { checkedHookConfigNow } from './checkedHookConfig.js';
import { hookSettingsChanges } from './hookSettingsChanges.js';

/**
 * What the project's configuration changes in the guard, read now, in the words `status` and the
 * dashboard print after `hooks: `: `settings of this project (/repo/loopguard.config.yaml, which git
 * tracks: it came with the repository): commands matching "^npm " and the tool "Edit" are exempt:
 * loopguard judges none of their calls; repeatThreshold 1000000 (default 3), stopAfter 1000000
 * (default 1)`. A cloned repository's `hook.exemptCommands`, `hook.exemptTools`, thresholds and
 * `hook.lockTimeoutMs` (0: a call that meets another's lock fails open)
 * narrow what is guarded (a threshold of a million is the guard switched off) as surely as
 * `hook.enabled: false`, so a door says them and where they came from (trust52). Exemptions are
 * those beyond the defaults (the default polling commands and tools are not listed); each pattern
 * and tool is quoted as JSON (a control character in the file is shown escaped). `undefined` when
 * the file changes nothing, and where the hooks are off or fail open on it (those are said
 * instead). Where the project's file is passed over (another user could write it:
 * {@link passedOverConfigFile}), that it is not read and why. Reads only; asks git only where there is something to say.
 * @example projectHookSettings('/repo') // undefined without a configuration file
 */
export function projectHookSettings(project: string): string | undefined {
  const file = findConfigFile(project);
  if (file === undefined) {
    const passedOver = passedOverConfigFile(project);
    return passedOver === undefined
      ? undefined
      : `${passedOver} is not read: it is not yours alone to write (another user's file, or one every user can write), so another user could speak for loopguard through it; the defaults apply`;
  }
  let config: ReturnType<typeof checkedHookConfigNow>;
  try {
    config = checkedHookConfigNow(project);
  } catch {
    return undefined; // the hooks fail open on it: `projectUnguarded` says so
  }
  if (!config.enabled) return undefined;
  const { commands, tools, changed } = hookSettingsChanges(config);
  const quoted = (names: readonly string[]) => names.map((name) => JSON.stringify(name)).join(', ');
  const exempt = [
    commands.length === 0 ? '' : `commands matching ${quoted(commands)}`,
    tools.length === 0 ? '' : `${tools.length === 1 ? 'the tool' : 'the tools'} ${quoted(tools)}`,
  ].filter((part) => part !== '');
  const parts = [
    exempt.length === 0
      ? ''
      : commands.length === 0 && tools.length === 1
        ? `${exempt[0]} is exempt: loopguard judges none of its calls`
        : `${exempt.join(' and ')} are exempt: loopguard judges none of their calls`,
    changed.join(', '),
  ].filter((part) => part !== '');
  if (parts.length === 0) return undefined;
  return `settings of this project (${cameFrom(file, project, true)}): ${parts.join('; ')}`;
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

/**
 * Which prices priced the replies of `project`'s sessions when its configuration sets `spend.prices`,
 * in the words `scan` prints: `Sessions of /repo priced at its spend.prices (from
 * /repo/loopguard.config.yaml, which git tracks: it came with the repository), below the pricing
 * library's: "claude-sonnet-4-5" input $0.00 (the library: $3.00), … a million tokens`
 * ({@link pricesBelowLibrary}); `undefined` without prices, and where the file cannot be used.
 */
export function projectPricesNote(project: string): string | undefined {
  const file = findConfigFile(project);
  if (file === undefined) return undefined;
  let prices: ReturnType<typeof checkedHookConfigNow>['prices'];
  try {
    prices = checkedHookConfigNow(project).prices;
  } catch {
    return undefined;
  }
  if (Object.keys(prices).length === 0) return undefined;
  const below = pricesBelowLibrary(prices);
  return `Sessions of ${project} priced at its spend.prices (${cameFrom(file, project)})${below === undefined ? '' : `, below the pricing library's: ${below}`}`;
}

/** `from <file>` (or `<file>` with `bare`), and `, which git tracks: it came with the repository` when git tracks it. */
function cameFrom(file: string, project: string, bare = false): string {
  const tracked = gitTracks(basename(file), project) ? ', which git tracks: it came with the repository' : '';
  return `${bare ? '' : 'from '}${file}${tracked}`;
}
