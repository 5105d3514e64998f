import { basename } from 'node:path';
import { execa } from 'execa';
import { ensureCachedTool } from './npmToolCache.js';

/**
 * The ccusage release the scan is compared with (pinned). Its npm package installs a native binary
 * for the platform (linux x64 and arm64, macOS, Windows); 20.0.24 is the newest with one published.
 */
export const CCUSAGE_VERSION = '20.0.24';

/** The `ccusage` command, installed on demand into `~/.cache/loopguard-test/ccusage-<version>` (~5 MB). */
export function ensureCcusage(): Promise<string> {
  return ensureCachedTool('ccusage', CCUSAGE_VERSION, `ccusage-${CCUSAGE_VERSION}`, ['.bin/ccusage']);
}

/** One session of `ccusage session --json`. */
interface CcusageSession {
  agent: string;
  /** The session: Claude Code's and Codex's file (a path without `.jsonl`), Gemini CLI's session id. */
  period: string;
  totalTokens: number;
}

/**
 * ccusage's token total of every session of every agent under `home` (its own places: `~/.claude`,
 * `~/.config/claude`, `~/.codex`, `~/.gemini`), offline: `<agent> <session>` → tokens, the session
 * named by its file name without `.jsonl` (Gemini CLI: its session id).
 */
export async function ccusageTotals(home: string): Promise<Map<string, number>> {
  const ccusage = await ensureCcusage();
  const run = await execa(ccusage, ['session', '--json', '--offline'], {
    env: { HOME: home, PATH: process.env.PATH },
    extendEnv: false,
  });
  const sessions = (JSON.parse(run.stdout) as { session: CcusageSession[] }).session;
  return new Map(sessions.map((s) => [`${s.agent} ${basename(s.period)}`, s.totalTokens]));
}
