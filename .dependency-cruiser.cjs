/**
 * Dependency rules (run by `pnpm run lint:deps`, part of `pnpm test`).
 *
 * packages/core/src is layered: kernel → model → storage → memory → features. A layer may import
 * its own files and the layers before it, never one after it. The features (attempts, steps,
 * breaker, guards, iteration, signatures, spend, and translation: one folder per agent) may use each
 * other, without cycles. The entry points (index.ts, internal.ts and the subpath entries) sit above everything.
 *
 * core/src/steps keeps its detector at the top (StepLoopDetector, the verdict, the message, the recorder) and
 * its parts in folders (rules, probes, history, keys, options, actions, parsers): the parts never import the top
 * but the step itself, and the folders that read one step (actions, parsers) know nothing of the run. The run's
 * folders import one way, lowest first: keys (one step's text as keys, hashes and shortened evidence), options
 * (the detector's options and the snapshot's shapes), probes, history, rules.
 *
 * packages/cli/src/install holds what `init`, `uninstall` and the MCP registration write into the agents'
 * settings files; the hook and the MCP server answer events and never edit settings, so they import none of it.
 * What every door shares sits in three folders below the commands: terminal (streams, tables, text, times, the
 * one-line error and its exit code), files (the user's files loopguard reads: agent homes, configuration files,
 * git) and state (the project's `.loopguard` folder and its database's schema). The entry points stay at the top.
 */
const core = '^packages/core/src/';
const features = '(attempts|steps|breaker|guards|iteration|signatures|spend|translation)';

/** A rule forbidding `layer` to import anything in `later`. */
function layer(name, later) {
  return {
    name: `core-${name}-layer`,
    severity: 'error',
    comment: `core/${name} may import only itself and the layers before it (kernel → model → storage → memory → features).`,
    from: { path: `${core}${name}/` },
    to: { path: `${core}(${later.join('|')})(/|\\.ts$)` },
  };
}

/** A rule forbidding files whose path matches `from` to import files whose path matches `to`. */
function forbid(name, comment, from, to) {
  return { name, severity: 'error', comment, from: { path: from }, to: { path: to } };
}

/** What each of core/steps' run folders is, lowest first (keys, below them all, is held by core-steps-one-step). */
const stepsRun = [
  ['options', "the detector's options and the snapshot's shapes"],
  ['probes', 'judge one probe against the ledger'],
  ['history', 'holds the run: the ledger, the turns and their outcomes'],
  ['rules', 'judge the history'],
];

/** One rule a folder of core/steps' run: it imports none of the folders above it. */
function stepsRunLadder() {
  return stepsRun.slice(0, -1).map(([folder, what], i) => {
    const above = stepsRun.slice(i + 1).map(([name]) => name);
    return forbid(
      `core-steps-${folder}-below-${above[0]}`,
      `core/steps/${folder} (${what}) imports none of ${above.join(', ')}: the run's folders import one way.`,
      `${core}steps/${folder}/`,
      `${core}steps/(${above.join('|')})/`,
    );
  });
}

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import cycles in any package source.',
      from: { path: '^packages/[^/]+/src/' },
      to: { circular: true },
    },
    layer('kernel', ['model', 'storage', 'memory', features, 'index', 'internal', 'entries']),
    layer('model', ['storage', 'memory', features, 'index', 'internal', 'entries']),
    layer('storage', ['memory', features, 'index', 'internal', 'entries']),
    layer('memory', [features, 'index', 'internal', 'entries']),
    {
      name: 'core-features-not-entries',
      severity: 'error',
      comment: 'Features import the files they use, never the package entry points.',
      from: { path: `${core}${features}/` },
      to: { path: `${core}(index|internal|entries)(/|\\.ts$)` },
    },
    {
      name: 'core-steps-parts-not-detector',
      severity: 'error',
      comment:
        "The folders of core/steps are the detector's parts: they import the step, never the detector, its verdict, message or recorder.",
      from: { path: `${core}steps/[^/]+/` },
      to: {
        path: `${core}steps/(StepLoopDetector|stepVerdict|stepLoopEntry|stepLoopMessage|stepLoopRecorder)\\.ts$`,
      },
    },
    {
      name: 'core-steps-one-step',
      severity: 'error',
      comment:
        'core/steps/actions, parsers and keys read one step (keys: its text as keys, hashes and evidence): they import none of the run (rules, probes, history, options).',
      from: { path: `${core}steps/(actions|parsers|keys)/` },
      to: { path: `${core}steps/(rules|probes|history|options)/` },
    },
    ...stepsRunLadder(),
    forbid(
      'cli-runtime-not-install',
      'The hook and the MCP server answer events; editing settings files is `init`/`uninstall` work (cli/src/install).',
      '^packages/cli/src/(hook|mcp)/',
      '^packages/cli/src/install/',
    ),
    forbid(
      'cli-shared-below-commands',
      "cli/src/terminal, files and state are what every door shares (the terminal's text and errors, the user's files, loopguard's own state folder): they import no command, door or entry point.",
      '^packages/cli/src/(terminal|files|state)/',
      '^packages/cli/src/((commands|demo|install|run|statusline|mcp)/|(program|main|bin|index)\\.ts$)',
    ),
    forbid(
      'cli-terminal-no-files',
      "cli/src/terminal writes text and errors: it reads none of the user's files nor loopguard's state.",
      '^packages/cli/src/terminal/',
      '^packages/cli/src/(files|state)/',
    ),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(dist|node_modules)/' },
    includeOnly: '^packages/[^/]+/src/',
    tsPreCompilationDeps: true,
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.d.ts'],
    },
  },
};
