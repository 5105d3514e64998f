import { existsSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import type { StepLoopDetectorOptions } from '@loopguard/core/steps';
import { checkedHookConfig } from '../hook/checkedHookConfig.js';
import { sessionProjectDir } from '../hook/sessionProject.js';
import type { ScanPricingSource } from './scanCost.js';
import type { ScannedSession } from './scannedSession.js';
import { setupText } from './setupText.js';

/** The detector's options and the prices a session is replayed and priced with. */
export interface ScanSetupOf {
  /** The detector's options for the project's sessions (its configuration file's, else the defaults). */
  detector: StepLoopDetectorOptions;
  /** `undefined` with `--price` (one price for every model, applied at the end). */
  pricing: ScanPricingSource | undefined;
}

/**
 * The sessions as their own projects' configuration judges and prices them: a session whose project
 * (the one the hooks keep it in, `sessionProjectDir` of the folder it started in) has a `hook`
 * section or `spend.prices` other than `base`'s (the folder `scan` runs in) is scanned again with
 * them, so `scan` replays each session with the options and prices its hooks used, and its row
 * agrees with `status` on that session (sessions53); one with no configuration file, the defaults,
 * as its hooks. A session whose folder is not on this machine, or whose project's configuration
 * cannot be read or is invalid (its hooks fail open there), keeps `base`. The files scanned again are grouped by
 * setup, each group scanned once, and their sessions take the places of the first scan's.
 * @param setupOf - the setup of a project's configuration (the caller adds `--budget`, `--price`).
 * @param rescan - scans `files` again with `setup`.
 */
export async function inProjectsOptions(
  sessions: ScannedSession[],
  base: ScanSetupOf,
  setupOf: (config: {
    detector: StepLoopDetectorOptions;
    prices: ScanPricingSource['prices'];
  }) => ScanSetupOf,
  rescan: (files: string[], setup: ScanSetupOf) => Promise<ScannedSession[]>,
): Promise<ScannedSession[]> {
  const baseKey = setupText(base);
  // each folder's project and each project's setup, looked up once
  const projects: ProjectsSeen = new Map();
  const setups = new Map<string, ScanSetupOf | undefined>();
  const groups = new Map<string, { setup: ScanSetupOf; files: Set<string> }>();
  for (const session of sessions) {
    const project = sessionSetupProject(session, projects);
    if (project === undefined) continue;
    if (!setups.has(project)) setups.set(project, await projectSetup(project, setupOf));
    const setup = setups.get(project);
    const key = setup === undefined ? baseKey : setupText(setup);
    if (setup === undefined || key === baseKey) continue;
    const group = groups.get(key) ?? { setup, files: new Set<string>() };
    group.files.add(session.file);
    groups.set(key, group);
  }
  if (groups.size === 0) return sessions;
  const again = new Map<string, ScannedSession[]>();
  for (const { setup, files } of groups.values()) {
    for (const session of await rescan([...files], setup)) {
      again.set(session.file, [...(again.get(session.file) ?? []), session]);
    }
  }
  return sessions.flatMap((session, i) => {
    const replaced = again.get(session.file);
    if (replaced === undefined) return [session];
    // a file's sessions, once, where its first stood
    return sessions.findIndex((s) => s.file === session.file) === i ? replaced : [];
  });
}

/** Each session folder's project (`sessionProjectDir`), looked up once; `undefined`: not on this machine. */
export type ProjectsSeen = Map<string, string | undefined>;

/**
 * The project whose configuration judges and prices `session` in {@link inProjectsOptions} (the one
 * its hooks keep it in), or `undefined` where its folder is not on this machine (a transcript
 * copied here, a fixture, loopguard's own JSONL): the folder `scan` runs in judges it then.
 */
export function sessionSetupProject(session: ScannedSession, seen: ProjectsSeen): string | undefined {
  if (session.project === null || !isAbsolute(session.project) || session.agent === 'jsonl') return undefined;
  if (!seen.has(session.project))
    seen.set(session.project, existsSync(session.project) ? sessionProjectDir(session.project) : undefined);
  return seen.get(session.project);
}

async function projectSetup(
  project: string,
  setupOf: Parameters<typeof inProjectsOptions>[2],
): Promise<ScanSetupOf | undefined> {
  try {
    return setupOf(await checkedHookConfig(project));
  } catch {
    return undefined;
  }
}
