import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import * as core from '../src/index.js';

const coreRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const packagesRoot = dirname(coreRoot);
const manifest = JSON.parse(readFileSync(join(coreRoot, 'package.json'), 'utf8')) as {
  exports: Record<string, { types: string; default: string }>;
};

/** The source file of each entry point named in package.json: `.` → src/index.ts, ... */
const entrySources = Object.fromEntries(
  Object.entries(manifest.exports).map(([subpath, target]) => [
    subpath,
    join(coreRoot, target.default.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts')),
  ]),
);

const program = ts.createProgram(Object.values(entrySources), {
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  strict: true,
  noEmit: true,
});
const checker = program.getTypeChecker();

/** Every name an entry exports, types included. */
function exportedNames(subpath: string): string[] {
  const source = program.getSourceFile(entrySources[subpath] as string);
  const symbol = source && checker.getSymbolAtLocation(source);
  return symbol
    ? checker
        .getExportsOfModule(symbol)
        .map((s) => s.name)
        .sort()
    : [];
}

/** Names that the sibling packages' sources import from `specifier`. */
function importedBySiblings(specifier: string): Set<string> {
  const names = new Set<string>();
  const pattern = new RegExp(
    `(?:import|export)\\s+(?:type\\s+)?\\{([^}]*)\\}\\s+from\\s+'${specifier}'`,
    'g',
  );
  for (const pkg of readdirSync(packagesRoot)) {
    if (pkg === 'core') continue;
    const src = join(packagesRoot, pkg, 'src');
    let files: string[];
    try {
      files = readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    } catch {
      continue;
    }
    for (const file of files) {
      const text = readFileSync(join(src, file), 'utf8');
      // a namespace import (`import * as core from …`) uses the names it reads off the namespace
      for (const [, ns] of text.matchAll(
        new RegExp(`import\\s+\\*\\s+as\\s+(\\w+)\\s+from\\s+'${specifier}'`, 'g'),
      )) {
        for (const [, name] of text.matchAll(new RegExp(`\\b${ns}\\.(\\w+)`, 'g'))) names.add(name as string);
      }
      for (const match of text.matchAll(pattern)) {
        for (const name of (match[1] ?? '').split(',')) {
          const bare = name
            .trim()
            .replace(/^type\s+/, '')
            .split(/\s+as\s+/)[0];
          if (bare) names.add(bare);
        }
      }
    }
  }
  return names;
}

describe('public API', () => {
  it('package.json names one entry per capability', () => {
    expect(Object.keys(manifest.exports).sort()).toEqual(
      [
        '.',
        './breaker',
        './guards',
        './internal',
        './iteration',
        './seeds',
        './spend',
        './steps',
        './testing',
      ].sort(),
    );
  });

  it('the main entry keeps what an embedder of the attempt-level detector uses, at most 60 names', () => {
    const names = exportedNames('.');
    expect(names.length).toBeLessThanOrEqual(60);
    expect(Object.keys(core).sort()).toEqual(
      [
        'CONTEXT_ENTRY_TYPES',
        'ConfigurationError',
        'InMemoryAttemptStore',
        'InMemoryStateMachine',
        'InMemoryStorage',
        'InvalidInputError',
        'LOOP_DETECTOR_PRESETS',
        'LoopDetector',
        'LoopGuardError',
        'MAX_METADATA_DEPTH',
        'ManualClock',
        'RECOVERY_TOPICS',
        'RunError',
        'SIZE_LIMITS',
        'SharedLoopDetector',
        'StorageError',
        'TASK_STATUSES',
        'asyncInMemoryStorage',
        'isTaskStatus',
        'storageOf',
        'systemClock',
      ].sort(),
    );
    for (const name of ['StepLoopDetector', 'StagnationBreaker', 'GuardSet', 'decide', 'checkSafetyGuards']) {
      expect(names).not.toContain(name);
    }
  });

  it('each capability has its entry', async () => {
    const steps = await import('../src/entries/steps.js');
    const breaker = await import('../src/entries/breaker.js');
    const guards = await import('../src/entries/guards.js');
    const iteration = await import('../src/entries/iteration.js');
    const seeds = await import('../src/entries/seeds.js');
    expect(steps.StepLoopDetector).toBeTypeOf('function');
    expect(steps.ClaudeStreamJsonParser).toBeTypeOf('function');
    expect(breaker.StagnationBreaker).toBeTypeOf('function');
    expect(breaker.DEFAULT_STAGNATION_THRESHOLD).toBeTypeOf('number');
    expect(guards.GuardSet).toBeTypeOf('function');
    expect(guards.ThrashingGuard).toBeTypeOf('function');
    expect(iteration.decide).toBeTypeOf('function');
    expect(iteration.InMemoryIterationStore).toBeTypeOf('function');
    expect(Object.keys(seeds).sort()).toEqual(
      [
        'DEFAULT_CONFIG',
        'checkCircuitBreaker',
        'checkMaxIterations',
        'checkQualityRegression',
        'checkSafetyGuards',
        'checkThrashing',
        'escalationReportFor',
        'extendBudget',
        'formatEscalationReport',
        'runSafetyChecks',
      ].sort(),
    );
  });

  it('every name has one home: no entry re-exports another entry’s name', () => {
    const homes = new Map<string, string[]>();
    for (const subpath of Object.keys(entrySources)) {
      for (const name of exportedNames(subpath)) homes.set(name, [...(homes.get(name) ?? []), subpath]);
    }
    const shared = [...homes].filter(([, where]) => where.length > 1);
    expect(shared).toEqual([]);
  });

  it('the internal entry holds only what sibling packages import from it', () => {
    const used = importedBySiblings('@loopguard/core/internal');
    const unused = exportedNames('./internal').filter((name) => !used.has(name));
    expect(unused).toEqual([]);
  });
});
