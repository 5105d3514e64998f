import { execa } from 'execa';

/** What the webhook receives when the breaker opens with `--on-stagnation alert` (and on pause/abort). */
export interface StagnationAlert {
  /** The run id. */
  run: string;
  /** The iteration that opened the breaker. */
  iteration: number;
  /** Why it opened. */
  reason: string;
  /** The last error signature seen, or `null`. */
  lastError: string | null;
  /** The task in progress, or `null`. */
  task: string | null;
  /** The action taken. */
  action: string;
}

/**
 * A webhook's URL as the run's output shows it: its origin, the rest (the path and query, where
 * Slack's, Discord's and most services' URLs hold their secret) left out, since that output goes to
 * terminals and CI logs.
 * @example shownWebhook('https://hooks.slack.com/services/T0/B0/xyz'); // 'https://hooks.slack.com/…'
 */
export function shownWebhook(url: string): string {
  let origin: string;
  try {
    origin = new URL(url).origin;
  } catch {
    return '…';
  }
  return `${origin}/…`;
}

/** A host on this machine: the loopback range, `localhost`, `[::1]`. */
const LOOPBACK = /^(?:127(?:\.\d{1,3}){3}|localhost|\[::1\])$/i;

/**
 * What `run` says when its webhook is plain `http://` to another machine (shell66): the alert (the
 * task, the agent's last error line) and the URL, whose path may hold the webhook's key, cross the
 * network unencrypted. One line, the URL by its origin; `undefined` for `https://` or this machine.
 * @example plainWebhookWarning('http://hooks.example.com/x'); // 'loopguard: warning: webhook http://hooks.example.com/… is plain http: …'
 */
export function plainWebhookWarning(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== 'http:' || LOOPBACK.test(parsed.hostname)) return undefined;
  return `loopguard: warning: webhook ${shownWebhook(url)} is plain http: its alerts (the task, the agent's last error line) and its URL cross the network unencrypted; use an https:// URL\n`;
}

/**
 * Posts `alert` as JSON to `url`, with a timeout and one retry.
 * @returns `null` when delivered, else why not.
 * @example await postWebhook('https://hooks.example/x', alert, 5000);
 */
export async function postWebhook(
  url: string,
  alert: StagnationAlert,
  timeoutMs = 5000,
): Promise<string | null> {
  let problem = 'not sent';
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(alert),
        signal: AbortSignal.timeout(timeoutMs),
      });
      if (response.ok) return null;
      problem = `HTTP ${response.status}`;
    } catch (error) {
      problem =
        (error as Error).name === 'TimeoutError'
          ? `no answer within ${timeoutMs}ms`
          : (error as Error).message;
    }
  }
  return problem;
}

/**
 * Shows a desktop notification where the machine has one (`notify-send` with a display, macOS
 * `osascript`); silent otherwise. `title` and `message` are the notifier's arguments, which every
 * local user can read while it runs: never text of the agent's (its output may hold a secret).
 */
export async function notifyDesktop(title: string, message: string, env: NodeJS.ProcessEnv): Promise<void> {
  if (process.platform === 'darwin') {
    await execa(
      'osascript',
      ['-e', `display notification ${JSON.stringify(message)} with title ${JSON.stringify(title)}`],
      { reject: false },
    );
  } else if (env.DISPLAY || env.WAYLAND_DISPLAY) {
    await execa('notify-send', [title, message], { reject: false, timeout: 3000 });
  }
}
