import { spawn } from 'node:child_process';
import { expect } from 'vitest';

/** One hook as Codex's `hooks/list` reports it (the fields the tests read). */
export interface ListedCodexHook {
  key: string;
  command?: string;
  currentHash: string;
  trustStatus: string;
}

/**
 * The user's trust step, done through Codex's own review API (what its `/hooks` screen does):
 * `codex app-server` on stdio, `hooks/list` for `cwd`, then `config/batchWrite` of
 * `hooks.state."<key>".trusted_hash` for each hook `pick` selects. Returns the hooks as listed
 * before the write. `warned` gets the listing's warnings (what Codex's TUI shows at each start,
 * `⚠ … warnings`); by default the test fails on any (qa49).
 */
export async function trustCodexHooks(
  codex: string,
  env: Record<string, string>,
  cwd: string,
  pick: (hook: ListedCodexHook) => boolean,
  warned: (warnings: string[]) => void = (warnings) => expect(warnings).toEqual([]),
): Promise<ListedCodexHook[]> {
  const server = spawn(codex, ['app-server'], { env, stdio: ['pipe', 'pipe', 'ignore'] });
  const waiting = new Map<number, (message: Record<string, unknown>) => void>();
  let buffer = '';
  server.stdout.on('data', (chunk) => {
    buffer += chunk;
    for (let end = buffer.indexOf('\n'); end !== -1; end = buffer.indexOf('\n')) {
      const message = JSON.parse(buffer.slice(0, end)) as Record<string, unknown>;
      buffer = buffer.slice(end + 1);
      if (typeof message.id === 'number') waiting.get(message.id)?.(message);
    }
  });
  let next = 0;
  const call = (method: string, params: unknown) =>
    new Promise<Record<string, unknown>>((resolve) => {
      const id = ++next;
      waiting.set(id, resolve);
      server.stdin.write(`${JSON.stringify({ id, method, params })}\n`);
    });
  try {
    await call('initialize', {
      clientInfo: { name: 'loopguard-test', title: null, version: '0' },
      capabilities: null,
    });
    server.stdin.write(`${JSON.stringify({ method: 'initialized' })}\n`);
    const listed = await call('hooks/list', { cwds: [cwd] });
    const data = (listed.result as { data: Array<{ hooks: ListedCodexHook[]; warnings?: string[] }> }).data;
    warned(data.flatMap((d) => d.warnings ?? []));
    const hooks = data.flatMap((d) => d.hooks);
    const edits = hooks.filter(pick).map((hook) => ({
      keyPath: `hooks.state.${JSON.stringify(hook.key)}.trusted_hash`,
      value: hook.currentHash,
      mergeStrategy: 'replace',
    }));
    if (edits.length > 0) {
      const written = await call('config/batchWrite', { edits });
      if (written.error !== undefined) throw new Error(`config/batchWrite: ${JSON.stringify(written.error)}`);
    }
    return hooks;
  } finally {
    server.stdin.end();
    server.kill();
  }
}
