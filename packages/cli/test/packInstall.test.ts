import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'loopguard-pack-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** npm's environment: better-sqlite3 compiles against the local Node headers (no header download here). */
function npmEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    npm_config_yes: 'true',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
  };
  const prefix = dirname(dirname(process.execPath));
  if (env.npm_config_nodedir === undefined && existsSync(join(prefix, 'include/node/node.h')))
    env.npm_config_nodedir = prefix;
  return env;
}

describe('the packages as published', () => {
  it(
    'pnpm pack of every package, installed with npm in an empty directory, runs npx loopguard demo',
    () => {
      const packs = join(work, 'packs');
      const app = join(work, 'app');
      execFileSync('bash', ['scripts/pnpm.sh', '-r', 'pack', '--pack-destination', packs], {
        cwd: root,
        stdio: 'pipe',
      });
      const tarballs = readdirSync(packs).filter((name) => name.endsWith('.tgz'));
      const packages = readdirSync(join(root, 'packages')).map((name) => `loopguard-${name}-0.1.0.tgz`);
      expect(tarballs.sort()).toEqual(packages.sort());
      execFileSync('mkdir', ['-p', app]);
      writeFileSync(join(app, 'package.json'), '{ "name": "empty", "private": true }\n');
      execFileSync('npm', ['install', '--no-audit', '--no-fund', ...tarballs.map((t) => join(packs, t))], {
        cwd: app,
        env: npmEnv(),
        stdio: 'pipe',
      });
      const out = execFileSync('npx', ['--no-install', 'loopguard', 'demo'], {
        cwd: app,
        env: npmEnv(),
        encoding: 'utf8',
      });
      expect(out).toContain('Attempt 4: LOOP DETECTED (completed_task_revisit) - force_next');
      expect(out).toContain('| loop_escalation   | ["T3.4.3"]');
      expect(out).toContain('Attempt 6: LOOP DETECTED (no_progress_repeat) - force_next');
      expect(out).toContain('Tick 5: T6.2.3 skipped - escalated, waiting for resolveEscalation()');
      expect(out).toContain('LOOP DETECTED (cross_task_cycle T5.1.1 -> T5.1.2 -> T5.1.3) - escalate');
      expect(out).toContain('"tickCount": 41');
      expect(existsSync(join(app, '.loopguard/demo.db'))).toBe(true);
      // The dashboard's files (page and the pinned chart library) ship in the server package.
      const assets = execFileSync(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          "const m = await import('@loopguard/server'); console.log([...m.loadStaticAssets().keys()].join(' '))",
        ],
        { cwd: app, encoding: 'utf8' },
      );
      expect(assets.trim()).toBe(
        '/ /dashboard.js /dashboard.css /vendor/uPlot.iife.min.js /vendor/uPlot.min.css',
      );
      // `loopguard scan --html` inlines the chart library and its own page script (the cli's assets/).
      const transcript = join(root, 'packages/cli/test/fixtures/scan/claude-2.1.330-looping.jsonl');
      const scan = execFileSync(
        'npx',
        ['--no-install', 'loopguard', 'scan', transcript, '--html', 'scan.html'],
        {
          cwd: app,
          env: npmEnv(),
          encoding: 'utf8',
        },
      );
      expect(scan).toContain("1 session looped past loopguard's stop");
      expect(readFileSync(join(app, 'scan.html'), 'utf8')).toContain('document.body.dataset.ready');
    },
    20 * 60_000,
  );
});
