// `loopguard init claude` edits Claude Code's `~/.claude.json`, which grows with every project
// (issue 38, part 3): the cost of adding loopguard's MCP server for a new project, on a file written
// on one line and indented, against the cost of reading it (`JSON.parse`), in the same run. "before"
// is the previous edit (jsonc-parser's `modify` + `applyEdits`, as init did up to issue 38), "after"
// is `withServer` (packages/cli/dist). Each is a child process of its own: its wall time and maxRSS,
// cut off after LIMIT seconds.
// Run: pnpm run build && node scripts/bench-claude-config.mjs [LIMIT=60]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const LIMIT = Number(process.argv[2] ?? 60);
const work = mkdtempSync(join(os.tmpdir(), 'loopguard-bench-config-'));
const cli = fileURLToPath(new URL('../packages/cli/', import.meta.url));
/** jsonc-parser's CommonJS build (its ESM build imports without file extensions, which node refuses). */
const cliPackage = join(cli, 'package.json');
const registration = pathToFileURL(join(cli, 'dist', 'install', 'mcpRegistration.js')).href;

/** A Claude Code configuration of about `bytes` in the shape of its own: many projects, each with its history. */
function claudeConfig(bytes, indented) {
  const projects = {};
  const config = {
    numStartups: 412,
    primaryApiKey: 'sk-ant-not-a-real-key',
    userID: 'f'.repeat(64),
    projects,
  };
  let size = 0;
  for (let n = 0; size < bytes; n++) {
    const project = {
      allowedTools: [],
      history: Array.from({ length: 20 }, (_, i) => ({
        display: `fix the failing test in src/module${n}/file${i}.ts and run npm test again`,
        pastedContents: {},
      })),
      mcpContextUris: [],
      mcpServers: {},
      enabledMcpjsonServers: [],
      disabledMcpjsonServers: [],
      hasTrustDialogAccepted: true,
      projectOnboardingSeenCount: 1,
      lastCost: 0.123456,
      lastSessionId: `${n}`.padStart(36, '0'),
    };
    projects[`/home/user/work/project-${n}`] = project;
    size += JSON.stringify(project).length * (indented ? 1.5 : 1);
  }
  return indented ? `${JSON.stringify(config, null, 2)}\n` : JSON.stringify(config);
}

const entry = { type: 'stdio', command: '/usr/bin/node', args: ['/opt/loopguard/bin.js', 'mcp'], env: {} };
const path = ['projects', '/home/user/work/new-project', 'mcpServers', 'loopguard'];

/** What each child loads (not timed), then runs on the file's text (timed). */
const approaches = {
  read: { load: '', edit: 'JSON.parse(text);' },
  before: {
    load: `const { applyEdits, modify } = (await import('node:module')).createRequire(${JSON.stringify(cliPackage)})('jsonc-parser');`,
    edit: `out = applyEdits(text, modify(text, path, entry, { formattingOptions: { insertSpaces: true, tabSize: 2 } }));`,
  },
  after: {
    load: `const { withServer } = await import(${JSON.stringify(registration)});`,
    edit: 'out = withServer(text, path, entry).text;',
  },
};

function run(file, approach) {
  const script = `
    import { readFileSync } from 'node:fs';
    const text = readFileSync(${JSON.stringify(file)}, 'utf8');
    const path = ${JSON.stringify(path)};
    const entry = ${JSON.stringify(entry)};
    let out;
    ${approaches[approach].load}
    const start = performance.now();
    ${approaches[approach].edit}
    const ms = performance.now() - start;
    if (out !== undefined && JSON.parse(out).projects[path[1]].mcpServers.loopguard.command !== entry.command) throw new Error('wrong edit');
    console.log(JSON.stringify({ ms, rssMB: process.resourceUsage().maxRSS / 1024, oneLine: out === undefined ? null : !out.trim().includes('\\n') }));`;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: LIMIT * 1000,
  });
  if (child.error?.code === 'ETIMEDOUT' || child.signal === 'SIGTERM') return `> ${LIMIT} s (cut off)`;
  if (child.status !== 0) return `failed: ${child.stderr.trim().split('\n').slice(0, 6).join(' ')}`;
  const { ms, rssMB, oneLine } = JSON.parse(child.stdout);
  const layout = oneLine === null ? '' : oneLine ? ', stays one line' : ', written over several lines';
  return `${(ms / 1000).toFixed(2)} s, ${Math.round(rssMB)} MB maxRSS${layout}`;
}

console.log(
  `node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model}, load ${os.loadavg()[0].toFixed(1)}`,
);
console.log(
  '| ~/.claude.json | reading it (JSON.parse) | before (jsonc-parser modify) | after (withServer) |',
);
console.log('| --- | --- | --- | --- |');
for (const [label, bytes, indented] of [
  ['477 KB, one line', 477 * 1024, false],
  ['5 MB, one line', 5 * 1024 * 1024, false],
  ['67 MB, indented', 67 * 1024 * 1024, true],
]) {
  const file = join(work, `${label.replace(/\W+/g, '-')}.json`);
  writeFileSync(file, claudeConfig(bytes, indented));
  const size = `${label} (${(statSync(file).size / 1024 / 1024).toFixed(2)} MiB)`;
  console.log(`| ${size} | ${run(file, 'read')} | ${run(file, 'before')} | ${run(file, 'after')} |`);
}
rmSync(work, { recursive: true, force: true });
