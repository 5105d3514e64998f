import { createHash } from 'node:crypto';
import { readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { CODEX_SESSION_END_TIMEOUT_MAX, MARKER_KEY } from './hookSettings.js';

/** Codex's snake-case label of a hook event in its trust keys and hashes. */
const EVENT_LABELS: Record<string, string> = {
  PreToolUse: 'pre_tool_use',
  PostToolUse: 'post_tool_use',
  Stop: 'stop',
  SessionEnd: 'session_end',
};

/** Events whose matcher Codex leaves out of a hook's identity. */
const NO_MATCHER = new Set(['stop', 'user_prompt_submit']);

/** One of loopguard's hooks in a Codex `hooks.json`, as Codex's review names and hashes it. */
export interface CodexHookTrust {
  /** Codex's key of the hook: `<real path of hooks.json>:<event>:<group>:<handler>`. */
  key: string;
  /** The event in `hooks.json` (`PreToolUse`, `SessionEnd`), as `init` names the events it guards. */
  event: string;
  /** The hash Codex trusts for its current definition (`sha256:…`). */
  currentHash: string;
  /** `trusted`: the user's `config.toml` holds this hash; `modified`: another; `untrusted`: none. */
  status: 'trusted' | 'modified' | 'untrusted';
}

/** What `init codex` tells the user about Codex's trust in loopguard's hooks. */
export interface CodexTrustReport {
  /** Each loopguard hook in the file, with its trust. */
  hooks: CodexHookTrust[];
  /** For a project's hooks: whether Codex trusts the project (else it loads none of its `.codex/`). */
  projectTrusted?: boolean;
}

/**
 * The hash Codex 0.169.0 gives a command hook (`hooks/list`'s `currentHash`, what its review
 * writes as `trusted_hash`): SHA-256 of the canonical JSON (keys sorted) of its normalised identity,
 * `{ event_name, matcher?, hooks: [{ type, command, timeout, async, statusMessage? }] }`. Checked
 * against the pinned Codex's own `hooks/list` (codexHooks.e2e.test.ts).
 */
export function codexHookHash(
  eventLabel: string,
  matcher: string | undefined,
  handler: Record<string, unknown>,
): string {
  const given = typeof handler.timeout === 'number' ? handler.timeout : undefined;
  const normalised: Record<string, unknown> = {
    type: 'command',
    command: handler.command,
    // a session's end waits for its hooks at most 3 s, 1 s by default (Codex 0.169.0's `hooks/list`)
    timeout:
      eventLabel === 'session_end'
        ? Math.min(CODEX_SESSION_END_TIMEOUT_MAX, Math.max(1, given ?? 1))
        : Math.max(1, given ?? 600),
    async: handler.async === true,
  };
  if (typeof handler.statusMessage === 'string') normalised.statusMessage = handler.statusMessage;
  const identity: Record<string, unknown> = { event_name: eventLabel, hooks: [normalised] };
  if (matcher !== undefined && !NO_MATCHER.has(eventLabel)) identity.matcher = matcher;
  return `sha256:${createHash('sha256')
    .update(JSON.stringify(sorted(identity)))
    .digest('hex')}`;
}

function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (value === null || typeof value !== 'object') return value;
  const record = value as Record<string, unknown>;
  return Object.fromEntries(
    Object.keys(record)
      .sort()
      .map((key) => [key, sorted(record[key])]),
  );
}

/**
 * Codex's trust in loopguard's hooks of `hooksFile` (the text `init` wrote): each hook's key and
 * current hash, and whether `[hooks.state."<key>"] trusted_hash` in `$CODEX_HOME/config.toml`
 * holds that hash; for a project's file, whether `[projects."<dir>"] trust_level` is `trusted`.
 * A `config.toml` that is missing or cannot be read counts as trusting nothing.
 */
export function codexTrust(
  hooksFile: string,
  hooksText: string,
  codexHome: string,
  projectDir?: string,
): CodexTrustReport {
  const config = readConfig(join(codexHome, 'config.toml'));
  const state = recordAt(config, 'hooks', 'state');
  const real = realPath(hooksFile);
  const hooks: CodexHookTrust[] = [];
  const events = recordAt(JSON.parse(hooksText) as unknown, 'hooks');
  for (const [event, groups] of Object.entries(events)) {
    const label = EVENT_LABELS[event];
    if (label === undefined || !Array.isArray(groups)) continue;
    groups.forEach((group: unknown, g) => {
      const { matcher, hooks: handlers } = (group ?? {}) as { matcher?: unknown; hooks?: unknown };
      if (!Array.isArray(handlers)) return;
      handlers.forEach((handler: unknown, h) => {
        const entry = (handler ?? {}) as Record<string, unknown>;
        if (entry[MARKER_KEY] === undefined) return;
        const key = `${real}:${label}:${g}:${h}`;
        const currentHash = codexHookHash(label, typeof matcher === 'string' ? matcher : undefined, entry);
        const trusted = recordAt(state, key).trusted_hash;
        const status =
          trusted === currentHash ? 'trusted' : typeof trusted === 'string' ? 'modified' : 'untrusted';
        hooks.push({ key, event, currentHash, status });
      });
    });
  }
  if (projectDir === undefined) return { hooks };
  const project = recordAt(config, 'projects', realPath(projectDir));
  const fallback = recordAt(config, 'projects', projectDir);
  return { hooks, projectTrusted: (project.trust_level ?? fallback.trust_level) === 'trusted' };
}

function readConfig(file: string): unknown {
  try {
    return parseToml(readFileSync(file, 'utf8'));
  } catch {
    return {};
  }
}

function realPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** The table at `keys` under `value`, or `{}`. */
function recordAt(value: unknown, ...keys: string[]): Record<string, unknown> {
  let current = value;
  for (const key of keys) {
    if (current === null || typeof current !== 'object' || Array.isArray(current)) return {};
    current = (current as Record<string, unknown>)[key];
  }
  return current !== null && typeof current === 'object' && !Array.isArray(current)
    ? (current as Record<string, unknown>)
    : {};
}
