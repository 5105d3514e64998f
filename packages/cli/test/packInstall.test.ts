import { execFileSync, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'loopguard-pack-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/**
 * The environment of the install: a temporary prefix; a temporary HOME for loopguard itself (init
 * records its installs there, and `--uninstall` cleans the user's settings), nothing of the user's
 * touched. The install keeps the real HOME: pnpm's store is found through it.
 */
const prefix = join(work, 'prefix');
const home = join(work, 'home');
mkdirSync(home);
const { CLAUDE_CONFIG_DIR, GEMINI_CLI_HOME, CODEX_HOME, ...inherited } = process.env;
const userEnv = { ...inherited, HOME: home };
const installEnv = { ...process.env, LOOPGUARD_PREFIX: prefix, npm_config_yes: 'true' };
const loopguard = join(prefix, 'bin', 'loopguard');

describe('the packages as published', () => {
  it('pnpm pack makes a tarball of every package', () => {
    const packs = join(work, 'packs');
    execFileSync('bash', ['scripts/pnpm.sh', '-r', 'pack', '--pack-destination', packs], {
      cwd: root,
      stdio: 'pipe',
    });
    const tarballs = readdirSync(packs).filter((name) => name.endsWith('.tgz'));
    const packages = readdirSync(join(root, 'packages')).map((name) => `loopguard-${name}-0.1.0.tgz`);
    expect(tarballs.sort()).toEqual(packages.sort());
  });

  it(
    'bash scripts/install.sh puts a working loopguard on a prefix: demo, dashboard files, init and its hook; again; --uninstall',
    () => {
      const out = execFileSync('bash', ['scripts/install.sh'], {
        cwd: root,
        env: installEnv,
        encoding: 'utf8',
      });
      expect(out).toContain(`loopguard 0.1.0 installed: ${loopguard}`);
      expect(out).toContain(
        'Next: in a project, loopguard init claude (or loopguard init gemini, loopguard init codex)',
      );

      const app = join(work, 'app');
      mkdirSync(app);
      const run = (args: string[], input?: string) =>
        execFileSync(loopguard, args, {
          cwd: app,
          env: userEnv,
          encoding: 'utf8',
          ...(input === undefined ? {} : { input }),
        });
      expect(run(['--version']).trim()).toBe('0.1.0');
      const demo = run(['demo']);
      expect(demo).toContain('Attempt 4: LOOP DETECTED (completed_task_revisit) - force_next');
      expect(demo).toContain('LOOP DETECTED (cross_task_cycle T5.1.1 -> T5.1.2 -> T5.1.3) - escalate');
      expect(demo).toContain('"tickCount": 41');
      expect(existsSync(join(app, '.loopguard/demo.db'))).toBe(true);
      // The dashboard's files (page and the pinned chart library) ship in the server package.
      const assets = execFileSync(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          "const m = await import('@loopguard/server'); console.log([...m.loadStaticAssets().keys()].join(' '))",
        ],
        { cwd: join(prefix, 'lib', 'loopguard'), encoding: 'utf8' },
      );
      expect(assets.trim()).toBe(
        '/ /dashboard.js /dashboard.css /formatUsd.js /vendor/uPlot.iife.min.js /vendor/uPlot.min.css',
      );
      // `loopguard scan --html` inlines the chart library and its own page script (the cli's assets/).
      const transcript = join(root, 'packages/cli/test/fixtures/scan/claude-2.1.330-looping.jsonl');
      expect(run(['scan', transcript, '--html', 'scan.html'])).toContain(
        '1 session looped where loopguard would have stopped it',
      );
      expect(readFileSync(join(app, 'scan.html'), 'utf8')).toContain('document.body.dataset.ready');

      // init writes hooks that call the installed command, and the hook answers through it.
      run(['init', 'claude', '--command-hooks']);
      const settings = readFileSync(join(app, '.claude', 'settings.json'), 'utf8');
      expect(settings).toContain(`'${loopguard}' hook claude`);
      // the fast path (the default) registers the installed command as Claude Code's MCP server
      run(['init', 'claude', '--user']);
      expect(readFileSync(join(home, '.claude.json'), 'utf8')).toContain(JSON.stringify(loopguard));
      const failing = JSON.stringify({
        session_id: 's1',
        cwd: app,
        hook_event_name: 'PostToolUseFailure',
        tool_name: 'Bash',
        tool_input: { command: 'cat missing.txt' },
        error: 'Exit code 1\ncat: missing.txt: No such file or directory',
      });
      const replies = [0, 1, 2].map(() => run(['hook', 'claude'], failing));
      expect(replies.join('')).toContain('additionalContext');
      // The hook command starts node from the startup snapshot install.sh built for this node, in place.
      const blob = join(
        realpathSync(prefix),
        'lib/loopguard/node_modules/@loopguard/cli/dist/bundle/hook.blob',
      );
      const command: string = JSON.parse(settings).hooks.PostToolUseFailure[0].hooks[0].command;
      expect(command).toContain(`--snapshot-blob '${blob}'`);
      const viaSnapshot = [0, 1, 2].map(() =>
        spawnSync('/bin/sh', ['-c', command], {
          cwd: app,
          input: failing.replace('"s1"', '"s2"'),
          encoding: 'utf8',
          env: userEnv,
        }),
      );
      expect(viaSnapshot.map(({ status, stderr }) => [status, stderr])).toEqual([
        [0, ''],
        [0, ''],
        [0, ''],
      ]);
      expect(viaSnapshot.map(({ stdout }) => stdout).join('')).toContain('additionalContext');
      // zod is not in the snapshot: a project's configuration loads it, compiled with the code cache
      // install.sh made beside the blob for this node
      expect(existsSync(join(dirname(blob), 'zod-subset.cache'))).toBe(true);
      // and the code cache of the pricing library each thread of a scan, and a hook call that prices, loads
      expect(existsSync(join(dirname(blob), 'genai-prices.cache'))).toBe(true);
      const configured = join(app, 'configured');
      mkdirSync(configured);
      writeFileSync(
        join(configured, 'loopguard.config.json'),
        JSON.stringify({ hook: { sameErrorThreshold: 2 } }),
      );
      const withConfig = [0, 1].map(() =>
        spawnSync('/bin/sh', ['-c', command], {
          cwd: configured,
          input: failing.replace('"s1"', '"s3"').replace(JSON.stringify(app), JSON.stringify(configured)),
          encoding: 'utf8',
          env: userEnv,
        }),
      );
      expect(withConfig.map(({ status, stderr }) => [status, stderr])).toEqual([
        [0, ''],
        [0, ''],
      ]);
      // nudged at the second failure: the project's sameErrorThreshold, read through zod
      expect(withConfig[1]?.stdout).toContain('additionalContext');
      // the status line init sets is node running the installed bundle, and it reads the sessions
      run(['init', 'claude', '--command-hooks', '--status-line']);
      const statusLine: string = JSON.parse(readFileSync(join(app, '.claude', 'settings.json'), 'utf8'))
        .statusLine.command;
      expect(statusLine).toContain('/node_modules/@loopguard/cli/dist/bundle/statusline.cjs');
      expect(
        execFileSync('/bin/sh', ['-c', statusLine], {
          cwd: app,
          input: JSON.stringify({ session_id: 's1', cwd: app }),
          encoding: 'utf8',
          env: userEnv,
        }),
      ).toMatch(/^loopguard: running, 3 tool calls ran, 1 nudge\n$/);

      const again = execFileSync('bash', ['scripts/install.sh'], {
        cwd: root,
        env: installEnv,
        encoding: 'utf8',
      });
      expect(again).toContain(`loopguard 0.1.0 installed: ${loopguard}`);
      expect(run(['--version']).trim()).toBe('0.1.0');

      const removed = execFileSync('bash', ['scripts/install.sh', '--uninstall'], {
        cwd: root,
        env: { ...userEnv, LOOPGUARD_PREFIX: prefix },
        encoding: 'utf8',
      });
      expect(removed).toContain(`removed ${loopguard}`);
      // no hook is left pointing at the removed command: the settings files init made are gone
      expect(existsSync(join(app, '.claude', 'settings.json'))).toBe(false);
      expect(existsSync(join(home, '.claude', 'settings.json'))).toBe(false);
      // sess68: the ~/.claude.json init made for its servers alone goes too, as the home had none
      expect(existsSync(join(home, '.claude.json'))).toBe(false);
      // nor anything init made for them (issue 35): ~/.claude/, "mcpServers": {}, installs.json
      expect(removed).not.toContain('no loopguard hooks to remove');
      expect(existsSync(join(home, '.claude'))).toBe(false);
      expect(existsSync(join(app, '.claude'))).toBe(false);
      expect(existsSync(join(home, '.loopguard'))).toBe(false);
      expect(existsSync(loopguard)).toBe(false);
      expect(existsSync(join(prefix, 'lib', 'loopguard'))).toBe(false);
    },
    30 * 60_000,
  );
});
