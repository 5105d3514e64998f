// Takes docs/dashboard-hooks.png: a project whose database only the hooks wrote. Real
// `loopguard hook` calls (Claude Code and Gemini CLI events, as their CLIs send them) make a
// Claude Code session that loops and is stopped, one stopped on spend, a Gemini CLI session that is
// nudged and changes its approach, and a clean one; then `loopguard serve` shows them in headless
// Chromium, with the stopped session opened.
// Run: npx tsc -b && node scripts/screenshot-dashboard-hooks.mjs
import { execFileSync, spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchScreenshotBrowser } from './lib/screenshotBrowser.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'packages/cli/dist/bin.js');
const project = mkdtempSync(join(tmpdir(), 'loopguard-hooks-shot-'));
writeFileSync(join(project, 'loopguard.config.yaml'), 'spend:\n  session:\n    maxCostUsd: 0.5\n');

/** One hook call of `agent` with `event` on stdin, as the agent CLI makes it. */
function hook(agent, event) {
  execFileSync(process.execPath, [bin, 'hook', agent], {
    cwd: project,
    input: JSON.stringify(event),
    env: { ...process.env, CLAUDE_PROJECT_DIR: '', GEMINI_PROJECT_DIR: '', LOOPGUARD_HOOK: '' },
  });
}

const transcript = (session) => join(project, `${session}.jsonl`);
const claude = (session, name, fields) => ({
  session_id: session,
  transcript_path: transcript(session),
  cwd: project,
  permission_mode: 'default',
  hook_event_name: name,
  ...fields,
});

/** A Bash call that fails the same way each time (unless loopguard denies it: then it never runs). */
function failingBash(session, n, command, denied = false) {
  const tool = { tool_name: 'Bash', tool_input: { command }, tool_use_id: `toolu_${session}_${n}` };
  hook('claude', claude(session, 'PreToolUse', tool));
  if (denied) return;
  hook(
    'claude',
    claude(session, 'PostToolUseFailure', {
      ...tool,
      error: 'Exit code 1\nError: Cannot find module ./cart.js\n    at test/cart.test.js:3',
      is_interrupt: false,
    }),
  );
}

/** A call that reads a new file; `tokens` of input the reply before it cost (in the transcript). */
function readFile(session, n, tokens = 0) {
  if (tokens > 0) {
    const record = {
      type: 'assistant',
      timestamp: new Date().toISOString(),
      message: {
        id: `msg_${session}_${n}`,
        model: 'claude-sonnet-4-5',
        role: 'assistant',
        usage: { input_tokens: tokens, output_tokens: 400 },
        content: [],
      },
    };
    appendFileSync(transcript(session), `${JSON.stringify(record)}\n`);
  }
  const tool = {
    tool_name: 'Read',
    tool_input: { file_path: join(project, `src/module${n}.ts`) },
    tool_use_id: `toolu_${session}_${n}`,
  };
  hook('claude', claude(session, 'PreToolUse', tool));
  hook(
    'claude',
    claude(session, 'PostToolUse', { ...tool, tool_response: `export const value${n} = ${n};` }),
  );
}

function gemini(session, n, command, output, exitCode) {
  const base = {
    session_id: session,
    transcript_path: transcript(session),
    cwd: project,
    timestamp: new Date().toISOString(),
    tool_name: 'run_shell_command',
    tool_input: { command },
  };
  hook('gemini', { ...base, hook_event_name: 'BeforeTool' });
  hook('gemini', {
    ...base,
    hook_event_name: 'AfterTool',
    tool_response: {
      llmContent: `<untrusted_context>\nOutput: ${output}\nExit Code: ${exitCode}\nProcess Group PGID: ${4000 + n}\n</untrusted_context>`,
      returnDisplay: output,
    },
  });
}

for (const session of ['5d1e9c20-clean', '8f3a2b71-spend']) writeFileSync(transcript(session), '');
for (let n = 1; n <= 6; n++) readFile('5d1e9c20-clean', n);
for (let n = 1; n <= 3; n++)
  gemini(
    '2c3050a1-gemini',
    n,
    'cat config/missing.yaml',
    'cat: config/missing.yaml: No such file or directory',
    1,
  );
gemini('2c3050a1-gemini', 4, 'ls config', 'app.yaml', 0);
for (let n = 1; n <= 4; n++) readFile('8f3a2b71-spend', n, 50_000); // $0.16 a reply: warned at 3, stopped at 4
for (let n = 1; n <= 4; n++) failingBash('b3c41f07-loop', n, 'npm test -- cart', n === 4);

const db = join(project, '.loopguard/state.db');
const serve = spawn(process.execPath, [bin, 'serve', '--db', db, '--port', '0'], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
const url = await new Promise((resolve, reject) => {
  let out = '';
  serve.stdout.on('data', (chunk) => {
    out += chunk;
    const match = /loopguard dashboard: (http:\S+)/.exec(out);
    if (match) resolve(match[1]);
  });
  serve.on('exit', (code) => reject(new Error(`serve exited with ${code}: ${out}`)));
});
const browser = await launchScreenshotBrowser();
try {
  const page = await browser.context.newPage();
  await page.goto(url);
  await page.waitForSelector('body[data-ready="true"]');
  await page.waitForFunction(() => document.getElementById('live')?.textContent === 'connected');
  await page.locator('#sessions tbody tr.session').first().click();
  await page.locator('#sessions tr.session-detail .session-entries details').nth(1).waitFor();
  await page.locator('#sessions tr.session-detail .session-entries summary').nth(1).click();
  await page.waitForTimeout(500);
  await page.screenshot({ path: join(root, 'docs/dashboard-hooks.png'), fullPage: true });
  console.log('wrote docs/dashboard-hooks.png');
} finally {
  await browser.close();
  serve.kill('SIGTERM');
  rmSync(project, { recursive: true, force: true });
}
