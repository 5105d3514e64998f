import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const depcruise = join(root, 'node_modules', '.bin', 'depcruise');
const config = join(root, '.dependency-cruiser.cjs');
let dir: string | undefined;

afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** Writes `files` (path → source) into a fresh tree and runs the repository's rules over it. */
function cruise(files: Record<string, string>): { ok: boolean; output: string } {
  dir = mkdtempSync(join(tmpdir(), 'loopguard-deps-'));
  for (const [path, source] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), source);
  }
  try {
    const output = execFileSync(depcruise, ['--config', config, 'packages'], { cwd: dir, encoding: 'utf8' });
    return { ok: true, output };
  } catch (error) {
    const failed = error as { stdout?: string };
    return { ok: false, output: failed.stdout ?? '' };
  }
}

describe('dependency rules', () => {
  it('accept imports that point from features down to the kernel', () => {
    const result = cruise({
      'packages/core/src/kernel/a.ts': 'export const a = 1;\n',
      'packages/core/src/model/b.ts': "import { a } from '../kernel/a.js';\nexport const b = a;\n",
      'packages/core/src/attempts/c.ts': "import { b } from '../model/b.js';\nexport const c = b;\n",
    });
    expect(result.ok).toBe(true);
  });

  it('reject a kernel file importing the model', () => {
    const result = cruise({
      'packages/core/src/kernel/a.ts': "import { b } from '../model/b.js';\nexport const a = b;\n",
      'packages/core/src/model/b.ts': 'export const b = 1;\n',
    });
    expect(result.ok).toBe(false);
    expect(result.output).toContain('core-kernel-layer');
  });

  it('reject storage importing a feature', () => {
    const result = cruise({
      'packages/core/src/storage/a.ts': "import type { B } from '../guards/b.js';\nexport type A = B;\n",
      'packages/core/src/guards/b.ts': 'export type B = number;\n',
    });
    expect(result.ok).toBe(false);
    expect(result.output).toContain('core-storage-layer');
  });

  it('reject an import cycle in any package, type-only imports included', () => {
    const result = cruise({
      'packages/cli/src/a.ts': "import type { B } from './b.js';\nexport type A = B | 1;\n",
      'packages/cli/src/b.ts': "import type { A } from './a.js';\nexport type B = A | 2;\n",
    });
    expect(result.ok).toBe(false);
    expect(result.output).toContain('no-circular');
  });

  it("reject the hook or the MCP server importing init's settings-editing files", () => {
    const install = 'export const edit = 1;\n';
    for (const from of ['hook', 'mcp']) {
      const result = cruise({
        'packages/cli/src/install/edit.ts': install,
        [`packages/cli/src/${from}/a.ts`]:
          "import { edit } from '../install/edit.js';\nexport const a = edit;\n",
      });
      expect(result.ok).toBe(false);
      expect(result.output).toContain('cli-runtime-not-install');
    }
    const command = cruise({
      'packages/cli/src/install/edit.ts': install,
      'packages/cli/src/commands/init.ts':
        "import { edit } from '../install/edit.js';\nexport const a = edit;\n",
    });
    expect(command.ok).toBe(true);
  });

  it("reject core/steps' probes importing the history, or the keys importing any of the run", () => {
    const files: Record<string, string> = {
      'packages/core/src/steps/history/stepHistory.ts': 'export const history = 1;\n',
      'packages/core/src/steps/probes/ProbeLedger.ts':
        "import { history } from '../history/stepHistory.js';\nexport const ledger = history;\n",
    };
    for (const run of ['history', 'probes', 'rules', 'options']) {
      files[`packages/core/src/steps/${run}/a.ts`] = 'export const a = 1;\n';
      files[`packages/core/src/steps/keys/${run}Key.ts`] =
        `import { a } from '../${run}/a.js';\nexport const k = a;\n`;
    }
    const bad = cruise(files);
    expect(bad.ok).toBe(false);
    expect(bad.output).toContain(
      'core-steps-probes-below-history: packages/core/src/steps/probes/ProbeLedger.ts',
    );
    for (const run of ['history', 'probes', 'rules', 'options'])
      expect(bad.output).toContain(`core-steps-one-step: packages/core/src/steps/keys/${run}Key.ts`);
    const both = cruise({
      'packages/core/src/steps/keys/fingerprint.ts': 'export const key = 1;\n',
      'packages/core/src/steps/probes/probeKey.ts':
        "import { key } from '../keys/fingerprint.js';\nexport const p = key;\n",
      'packages/core/src/steps/history/stepHistory.ts':
        "import { key } from '../keys/fingerprint.js';\nimport { p } from '../probes/probeKey.js';\nexport const h = key + p;\n",
    });
    expect(both.ok).toBe(true);
  });

  // code64: the run's folders of core/steps import one way, keys → options → probes → history → rules
  it("reject a folder of core/steps' run importing one above it: options the probes or the history, the history the rules", () => {
    const order = ['options', 'probes', 'history', 'rules'];
    const files: Record<string, string> = {};
    for (const [i, low] of order.entries()) {
      files[`packages/core/src/steps/${low}/a.ts`] = 'export const a = 1;\n';
      for (const high of order.slice(i + 1))
        files[`packages/core/src/steps/${low}/${high}User.ts`] =
          `import { a } from '../${high}/a.js';\nexport const b = a;\n`;
    }
    const bad = cruise(files);
    expect(bad.ok).toBe(false);
    for (const [i, low] of order.entries())
      for (const high of order.slice(i + 1))
        expect(bad.output).toContain(
          `core-steps-${low}-below-${order[i + 1]}: packages/core/src/steps/${low}/${high}User.ts`,
        );
    const fine = cruise({
      'packages/core/src/steps/keys/shorten.ts': 'export const s = 1;\n',
      'packages/core/src/steps/options/stepSnapshot.ts':
        "import { s } from '../keys/shorten.js';\nexport const o = s;\n",
      'packages/core/src/steps/probes/probeKey.ts':
        "import { o } from '../options/stepSnapshot.js';\nexport const p = o;\n",
      'packages/core/src/steps/history/turnOutcome.ts':
        "import { s } from '../keys/shorten.js';\nimport { o } from '../options/stepSnapshot.js';\nimport { p } from '../probes/probeKey.js';\nexport const h = s + o + p;\n",
      'packages/core/src/steps/rules/StepRule.ts':
        "import { h } from '../history/turnOutcome.js';\nimport { o } from '../options/stepSnapshot.js';\nexport const r = h + o;\n",
    });
    expect(fine.ok, fine.output).toBe(true);
  });

  it("reject the CLI's shared folders importing a command or an entry, and terminal/ importing files or state", () => {
    const bad = cruise({
      'packages/cli/src/commands/init.ts': 'export const i = 1;\n',
      'packages/cli/src/run/startRun.ts': 'export const r = 1;\n',
      'packages/cli/src/program.ts': 'export const p = 1;\n',
      'packages/cli/src/files/gitTracks.ts': 'export const g = 1;\n',
      'packages/cli/src/terminal/a.ts': "import { i } from '../commands/init.js';\nexport const a = i;\n",
      'packages/cli/src/files/b.ts': "import { r } from '../run/startRun.js';\nexport const b = r;\n",
      'packages/cli/src/state/c.ts': "import { p } from '../program.js';\nexport const c = p;\n",
      'packages/cli/src/terminal/d.ts': "import { g } from '../files/gitTracks.js';\nexport const d = g;\n",
    });
    expect(bad.ok).toBe(false);
    for (const from of ['terminal/a.ts', 'files/b.ts', 'state/c.ts'])
      expect(bad.output).toMatch(new RegExp(`cli-shared-below-commands: packages/cli/src/${from}`));
    expect(bad.output).toMatch(/cli-terminal-no-files: packages\/cli\/src\/terminal\/d\.ts/);
    const fine = cruise({
      'packages/cli/src/terminal/CliError.ts': 'export const e = 1;\n',
      'packages/cli/src/files/agentHome.ts':
        "import { e } from '../terminal/CliError.js';\nexport const h = e;\n",
      'packages/cli/src/commands/init.ts':
        "import { h } from '../files/agentHome.js';\nexport const i = h;\n",
    });
    expect(fine.ok).toBe(true);
  });
});
