// What a guarded tool call costs the agent: `loopguard hook claude|gemini` (node start-up included)
// against a no-op hook (`node -e ''`) in the same run, calls interleaved, on a short session and on
// a session of 2,000 steps, for both CLIs. Command hooks run as the CLIs run them: the command
// `init` writes (started from the hook's startup snapshot), through `sh -c`, and so does the no-op.
// Also: the same call without the snapshot (the bundle, what the command falls back to), through
// the modules (what `bin.js` loads when the bundle was not built); and Claude Code's fast path, a tool
// call's two mcp_tool hooks (before and after) answered by `loopguard mcp` over its stdio, as
// Claude Code calls it; and Claude Code's PostToolBatch after a reply whose call ran (refused69),
// as a command hook and on the fast path. Targets (issue 30): one command hook call p50 ≤ 1.5× the no-op hook; a
// tool call ≤ 10 ms p50 on the fast path.
// With LOOPGUARD_BENCH_BASELINE=<another built checkout> (a worktree of the build before), the
// command hook's calls on the 2,000-step sessions run through that build too, interleaved in the
// same run ("before:" rows, Claude Code's PostToolBatch after the call among them), each build on
// sessions it wrote itself.
// With LOOPGUARD_BENCH_CPU=1, each call runs under `perf stat -e task-clock` and its CPU time (the
// process tree's, user and system) is reported beside the wall time: on a shared machine the CPU
// time of a call is far steadier than its wall time, which waits for the other processes.
// The header says whether NODE_EXTRA_CA_CERTS is set: node 20 then parses that file at every start
// (≈ 37 ms of CPU with a system bundle of 144 certificates), the no-op's too, which the hook's command
// leaves out (snapshotCommand.ts); run with `env -u NODE_EXTRA_CA_CERTS` for a machine without it.
// With LOOPGUARD_BENCH_CONFIG=<JSON text>, every project (each build's) has it as its
// loopguard.config.json, written before its session is made: e.g.
// '{"spend":{"session":{"maxCostUsd":10}}}' (what `init --spend` sets) or '{"hook":{"stopAfter":2}}'.
// Run: pnpm run build && node scripts/bench-hook.mjs [calls per variant]
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const CALLS = Number(process.argv[2] ?? 40);
const LONG_SESSION_STEPS = 2000;
const BASELINE = process.env.LOOPGUARD_BENCH_BASELINE;
const CONFIG = process.env.LOOPGUARD_BENCH_CONFIG;
if (CONFIG !== undefined) JSON.parse(CONFIG); // a typo fails here, not as every call's logged failure
const cliOf = (root) => (path) => fileURLToPath(new URL(`packages/cli/dist/${path}`, root));
const cli = cliOf(new URL('../', import.meta.url));
const bin = cli('bin.js');
const { guardProject } = await import(cli('hook/guardProject.js'));
const { shellQuote, plainHookCommand } = await import(cli('hook/snapshotCommand.js'));
/** The hook command the `init` of the build at `build` writes for `agent` (see commands/loopguardCommand.ts): each build its own. */
const installedOf = async (build) => {
  const { snapshotHookCommand, usableHookSnapshot } = await import(build('hook/snapshotCommand.js'));
  const buildBin = build('bin.js');
  const buildBlob = usableHookSnapshot(process.execPath, buildBin);
  if (buildBlob === undefined) throw new Error(`no usable hook snapshot beside ${buildBin}: build it first`);
  return (agent) => snapshotHookCommand([process.execPath, buildBin], buildBlob, agent);
};
/** The hook command `init` writes for `agent` (see commands/loopguardCommand.ts), and the same without the snapshot. */
const installed = await installedOf(cli);
const plain = (agent) =>
  plainHookCommand?.([process.execPath, bin], agent) ?? // a build before it: the command it wrote
  `${[process.execPath, bin].map(shellQuote).join(' ')} hook ${agent}`;

const work = mkdtempSync(join(os.tmpdir(), 'loopguard-bench-hook-'));

/** Claude Code's `tool_use_id` of the call that runs `command` (one call per command in a run). */
const callIdOf = (command) => `toolu_${Buffer.from(command).toString('hex').slice(-24)}`;

/** Each CLI's events: the tool call before it runs and after, in its own dialect. */
const DIALECTS = {
  claude: {
    before: (command) => ({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command } }),
    after: (command, output) => ({
      hook_event_name: 'PostToolUse',
      tool_name: 'Bash',
      tool_input: { command },
      tool_use_id: callIdOf(command),
      tool_response: { stdout: output, stderr: '', interrupted: false },
    }),
    // the reply's PostToolBatch after its one call ran (its PostToolUse fed it: nothing to judge)
    batch: (command, output) => ({
      hook_event_name: 'PostToolBatch',
      tool_calls: [
        {
          tool_name: 'Bash',
          tool_input: { command },
          tool_use_id: callIdOf(command),
          tool_response: { stdout: output, stderr: '', interrupted: false },
        },
      ],
    }),
  },
  gemini: {
    before: (command) => ({
      hook_event_name: 'BeforeTool',
      tool_name: 'run_shell_command',
      tool_input: { command },
    }),
    after: (command, output) => ({
      hook_event_name: 'AfterTool',
      tool_name: 'run_shell_command',
      tool_input: { command },
      tool_response: { llmContent: output, returnDisplay: output },
    }),
  },
};

const output = (i) =>
  `${`line ${i % 97} of the file, with some text to make it realistic\n`.repeat(20 + (i % 40))}`;

/**
 * A project whose session already has `steps` steps (half as many tool calls over 400 distinct
 * commands with 1-3 KB outputs, some failing), written through the hook's own code path.
 */
async function project(agent, steps, guard = guardProject) {
  const dir = mkdtempSync(join(work, `${agent}-${steps}-`));
  if (CONFIG !== undefined) writeFileSync(join(dir, 'loopguard.config.json'), CONFIG);
  for (let i = 0; i < steps / 2; i++) {
    const n = i % 400;
    await guard(
      agent,
      {
        kind: 'after_tool',
        sessionId: 'bench-session',
        projectDir: dir,
        eventName: 'after',
        tool: 'Bash',
        input: n % 3 === 0 ? `pytest tests/test_${n}.py` : `cat src/module_${n}.py`,
        output: `${output(i)}${i}`,
        error: n % 7 === 0,
      },
      Date.now,
    );
  }
  return dir;
}

const event = (dir, fields) => JSON.stringify({ session_id: 'bench-session', cwd: dir, ...fields });
/** A new command each round (progress): the session grows by 2 steps per call and is never nudged. */
const command = (round) => `git show HEAD~${round} --stat`;

const NOOP = 'no-op hook (`node -e ""`)';
const variants = { [NOOP]: { shell: `${shellQuote(process.execPath)} -e ''`, input: () => '' } };
for (const agent of ['claude', 'gemini']) {
  for (const steps of [0, LONG_SESSION_STEPS]) {
    const dir = await project(agent, steps);
    const dialect = DIALECTS[agent];
    const session = steps === 0 ? 'new session' : `${steps}-step session`;
    variants[`${agent}, after the call, ${session}`] = {
      shell: installed(agent),
      input: (round) => event(dir, dialect.after(command(round), `commit ${round}\n 1 file changed`)),
    };
    if (dialect.batch !== undefined)
      variants[`${agent}, the reply's PostToolBatch after the call, ${session}`] = {
        shell: installed(agent),
        input: (round) => event(dir, dialect.batch(command(round), `commit ${round}\n 1 file changed`)),
      };
    if (steps > 0 && BASELINE !== undefined) {
      const before = cliOf(pathToFileURL(`${resolve(BASELINE)}/`));
      const beforeDir = await project(
        agent,
        steps,
        (await import(before('hook/guardProject.js'))).guardProject,
      );
      const beforeShell = (await installedOf(before))(agent);
      variants[`before: ${agent}, after the call, ${session}`] = {
        shell: beforeShell,
        input: (round) => event(beforeDir, dialect.after(command(round), `commit ${round}\n 1 file changed`)),
      };
      // the build before's batch after the same call, on its own session: the batch's row to compare with
      if (dialect.batch !== undefined)
        variants[`before: ${agent}, the reply's PostToolBatch after the call, ${session}`] = {
          shell: beforeShell,
          input: (round) =>
            event(beforeDir, dialect.batch(command(round), `commit ${round}\n 1 file changed`)),
        };
    }
    if (steps > 0) {
      variants[`${agent}, before the call, ${session}`] = {
        shell: installed(agent),
        input: (round) => event(dir, dialect.before(command(round + 100_000))),
      };
      variants[`${agent}, after the call, ${session}, without the snapshot (bundle)`] = {
        shell: plain(agent),
        input: (round) =>
          event(dir, dialect.after(command(round + 400_000), `commit ${round + 400_000}\n 1 file changed`)),
      };
      variants[`${agent}, before the call, ${session}, without the snapshot (bundle)`] = {
        shell: plain(agent),
        input: (round) => event(dir, dialect.before(command(round + 500_000))),
      };
      variants[`${agent}, after the call, ${session}, modules (no bundle)`] = {
        args: [
          '--input-type=module',
          '-e',
          `const { hookMain } = await import(${JSON.stringify(cli('hook/hookMain.js'))}); process.exitCode = await hookMain(${JSON.stringify(agent)});`,
        ],
        input: (round) =>
          event(dir, dialect.after(command(round + 200_000), `commit ${round + 200_000}\n 1 file changed`)),
      };
    }
  }
}

// The fast path: loopguard's MCP server as Claude Code starts it (`loopguard mcp` on stdio, with
// CLAUDE_PROJECT_DIR: a server started without it answers every call empty, judging nothing, as a
// server another client started) and calls it from its mcp_tool hooks: each event's fields as
// strings, objects as their JSON. One server per project, as Claude Code starts one per session.
const servers = [];
/** A `loopguard mcp` for project `dir`, and its `hook` tool as Claude Code calls it. */
async function mcpServer(dir) {
  const server = spawn(process.execPath, [bin, 'mcp'], {
    cwd: dir,
    env: { ...process.env, CLAUDE_PROJECT_DIR: dir },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  servers.push(server);
  const waiting = new Map();
  let buffered = '';
  server.stdout.on('data', (chunk) => {
    buffered += chunk;
    for (let end = buffered.indexOf('\n'); end !== -1; end = buffered.indexOf('\n')) {
      const message = JSON.parse(buffered.slice(0, end));
      buffered = buffered.slice(end + 1);
      waiting.get(message.id)?.(message);
      waiting.delete(message.id);
    }
  });
  let nextId = 0;
  const rpc = (method, params) =>
    new Promise((resolve) => {
      const id = ++nextId;
      waiting.set(id, resolve);
      server.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  await rpc('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench' } });
  return async (event) => {
    const args = Object.fromEntries(
      Object.entries(event).map(([key, value]) => [
        key,
        typeof value === 'string' ? value : JSON.stringify(value),
      ]),
    );
    const { result } = await rpc('tools/call', { name: 'hook', arguments: args });
    if (result.isError || result.content[0].text !== '')
      throw new Error(`the MCP server answered ${JSON.stringify(result)}`);
  };
}
for (const steps of [0, LONG_SESSION_STEPS]) {
  const dir = await project('claude', steps);
  const hookTool = await mcpServer(dir);
  const session = steps === 0 ? 'new session' : `${steps}-step session`;
  const event = (fields) => ({ session_id: 'bench-session', cwd: dir, ...fields });
  variants[`claude fast path (MCP server), a tool call (before and after), ${session}`] = {
    inProcess: async (round) => {
      await hookTool(event(DIALECTS.claude.before(command(round + 300_000))));
      await hookTool(
        event(DIALECTS.claude.after(command(round + 300_000), `commit ${round}\n 1 file changed`)),
      );
    },
  };
  variants[
    `claude fast path (MCP server), a tool call (before and after) and the reply's PostToolBatch, ${session}`
  ] = {
    inProcess: async (round) => {
      const run = command(round + 600_000);
      await hookTool(event(DIALECTS.claude.before(run)));
      await hookTool(event(DIALECTS.claude.after(run, `commit ${round}\n 1 file changed`)));
      await hookTool(event(DIALECTS.claude.batch(run, `commit ${round}\n 1 file changed`)));
    },
  };
  // the batch's message alone (its call fed just before, untimed): what it adds to a reply
  variants[`claude fast path (MCP server), the reply's PostToolBatch alone, ${session}`] = {
    inProcess: async (round) => {
      const run = command(round + 700_000);
      await hookTool(event(DIALECTS.claude.before(run)));
      await hookTool(event(DIALECTS.claude.after(run, `commit ${round}\n 1 file changed`)));
      const start = process.hrtime.bigint();
      await hookTool(event(DIALECTS.claude.batch(run, `commit ${round}\n 1 file changed`)));
      return Number(process.hrtime.bigint() - start) / 1e6;
    },
  };
}

const times = Object.fromEntries(Object.keys(variants).map((name) => [name, []]));
const CPU = process.env.LOOPGUARD_BENCH_CPU === '1';
const cpuTimes = Object.fromEntries(Object.keys(variants).map((name) => [name, []]));
/** Runs `command` with `argv`, under `perf stat` when the CPU time is measured (its figure is then read from stderr). */
const run = (command, argv, stdin) => {
  const perf = ['stat', '-x,', '-e', 'task-clock', command, ...argv];
  const result = spawnSync(CPU ? 'perf' : command, CPU ? perf : argv, {
    cwd: work,
    input: stdin,
    encoding: 'utf8',
  });
  const cpu = CPU ? /([\d.]+),msec,task-clock/.exec(result.stderr ?? '') : undefined;
  if (CPU && cpu === null)
    throw new Error(`perf stat measured nothing (is perf installed?): ${result.stderr}`);
  return { ...result, cpuMs: cpu === undefined ? undefined : Number(cpu[1]) };
};
for (let round = 0; round < CALLS; round++) {
  for (const [name, { args, shell, input, inProcess }] of Object.entries(variants)) {
    if (inProcess !== undefined) {
      const start = process.hrtime.bigint();
      const own = await inProcess(round);
      times[name].push(own ?? Number(process.hrtime.bigint() - start) / 1e6);
      continue;
    }
    const stdin = input(round);
    const start = process.hrtime.bigint();
    const result =
      shell === undefined ? run(process.execPath, args, stdin) : run('/bin/sh', ['-c', shell], stdin);
    times[name].push(Number(process.hrtime.bigint() - start) / 1e6);
    if (result.cpuMs !== undefined) cpuTimes[name].push(result.cpuMs);
    if (result.status !== 0 || result.stdout !== '')
      throw new Error(`${name}: exit ${result.status}, stdout ${result.stdout}`);
  }
}
for (const server of servers) {
  server.stdin.end();
  await new Promise((resolve) => server.once('exit', resolve));
}

const pct = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};
const noop = pct(times[NOOP], 50);
console.log(
  `machine: ${os.cpus().length} × ${os.cpus()[0]?.model}, node ${process.version}, load ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}; ${CALLS} calls per variant, interleaved; NODE_EXTRA_CA_CERTS ${
    process.env.NODE_EXTRA_CA_CERTS ? 'set' : 'unset'
  }${CONFIG === undefined ? '' : `; loopguard.config.json ${CONFIG}`}\n`,
);
const noopCpu = CPU ? pct(cpuTimes[NOOP], 50) : undefined;
const cpuColumns = CPU ? ' p50 CPU ms | CPU ratio to no-op |' : '';
console.log(`| variant | p50 ms | p99 ms | p50 ratio to no-op |${cpuColumns}`);
console.log(`| --- | --- | --- | --- |${CPU ? ' --- | --- |' : ''}`);
for (const [name, values] of Object.entries(times)) {
  const cpu = cpuTimes[name].length === 0 ? undefined : pct(cpuTimes[name], 50);
  const cpuCells =
    noopCpu === undefined
      ? ''
      : cpu === undefined
        ? ' – | – |'
        : ` ${cpu.toFixed(1)} | ${(cpu / noopCpu).toFixed(2)} |`;
  console.log(
    `| ${name} | ${pct(values, 50).toFixed(1)} | ${pct(values, 99).toFixed(1)} | ${(pct(values, 50) / noop).toFixed(2)} |${cpuCells}`,
  );
}
rmSync(work, { recursive: true, force: true });
