import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa } from 'execa';

/**
 * Marks `home` as the home of a user who has already been through Claude Code's first-run screens,
 * so that the interactive `claude` opens its prompt offline: onboarding done (its check reaches
 * api.anthropic.com), `projectDir` trusted, `apiKey` (`ANTHROPIC_API_KEY`) approved (Claude Code
 * keeps its last 20 characters), and the bypass-permissions warning accepted (the key that dialog
 * writes to `~/.claude/settings.json`). Keeps what `~/.claude.json` already holds (the MCP server
 * `init claude` registers).
 */
export function seedClaudeHome(home: string, projectDir: string, apiKey: string): void {
  const file = join(home, '.claude.json');
  let config: { projects?: Record<string, Record<string, unknown>> } = {};
  try {
    config = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    // no file yet: the seed is the whole config
  }
  const projects = config.projects ?? {};
  projects[projectDir] = { ...projects[projectDir], hasTrustDialogAccepted: true };
  const customApiKeyResponses = { approved: [apiKey.slice(-20)], rejected: [] };
  writeFileSync(
    file,
    JSON.stringify({ ...config, hasCompletedOnboarding: true, customApiKeyResponses, projects }, null, 2),
  );
  mkdirSync(join(home, '.claude'), { recursive: true });
  writeFileSync(
    join(home, '.claude', 'settings.json'),
    JSON.stringify({ skipDangerousModePermissionPrompt: true }, null, 2),
  );
}

/** An interactive program running in a tmux pane of its own tmux server (its own socket). */
export interface TmuxPane {
  /** The pid of the pane's program. */
  pid: number;
  /** The pane's visible text, as `tmux capture-pane -p` prints it. */
  capture(): Promise<string>;
  /** Types `text` literally, then presses Enter once the pane shows it. */
  submit(text: string): Promise<void>;
  /** Presses one key, named as `tmux send-keys` names it (`Escape`, `Enter`). */
  press(key: string): Promise<void>;
  /**
   * Polls the pane until `match` returns a value (not `undefined`), then returns it.
   * @throws Error naming `what`, with the last pane, after `timeoutMs` (default 60 s).
   */
  waitFor<T>(what: string, match: (pane: string) => T | undefined, timeoutMs?: number): Promise<T>;
  /** Kills the tmux server (the pane's program gets SIGHUP), then the program by its pid if it outlived it. */
  close(): Promise<void>;
}

/**
 * Runs `command` in a detached tmux session of `width` × `height` cells, on a tmux server of its
 * own (socket in a temporary folder, no user config), with exactly `env` (plus PATH, LANG and a
 * terminal type): nothing of the test's environment leaks into the program.
 */
export async function startTmuxPane(
  command: readonly string[],
  {
    cwd,
    env,
    width = 200,
    height = 50,
  }: { cwd: string; env: Record<string, string>; width?: number; height?: number },
): Promise<TmuxPane> {
  const folder = mkdtempSync(join(tmpdir(), 'loopguard-tmux-'));
  const socket = join(folder, 'socket');
  const tmux = (...args: string[]) =>
    execa('tmux', ['-S', socket, '-f', '/dev/null', ...args], {
      extendEnv: false,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', TERM: 'xterm-256color', ...env },
      timeout: 10_000,
    });
  await tmux(
    'new-session',
    '-d',
    '-s',
    'agent',
    '-x',
    String(width),
    '-y',
    String(height),
    '-c',
    cwd,
    '--',
    ...command,
  );
  const pid = Number((await tmux('display-message', '-p', '-t', 'agent', '#{pane_pid}')).stdout);
  const capture = async () => String((await tmux('capture-pane', '-p', '-t', 'agent')).stdout);
  const pane: TmuxPane = {
    pid,
    capture,
    async submit(text) {
      await tmux('send-keys', '-t', 'agent', '-l', text);
      // Enter once the program shows the text: a key sent before it is drawn can be lost
      await pane.waitFor(`"${text}" typed`, (shown) => (shown.includes(text) ? true : undefined));
      await tmux('send-keys', '-t', 'agent', 'Enter');
    },
    async press(key) {
      await tmux('send-keys', '-t', 'agent', key);
    },
    async waitFor(what, match, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      let pane = '';
      for (;;) {
        pane = await capture();
        const found = match(pane);
        if (found !== undefined) return found;
        if (Date.now() > deadline)
          throw new Error(`tmux pane: no ${what} after ${timeoutMs / 1000} s; the pane:\n${pane}`);
        await sleep(200);
      }
    },
    async close() {
      await tmux('kill-server').catch(() => undefined);
      for (let i = 0; i < 50 && alive(pid); i++) await sleep(100);
      if (alive(pid)) process.kill(pid, 'SIGKILL');
      rmSync(folder, { recursive: true, force: true });
    },
  };
  return pane;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
