// Gemini CLI's own LoopDetectionService, from the npm package @google/gemini-cli-core, installed
// on demand (pinned) into a cache directory: never a workspace dependency (~380 MB).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

export const GEMINI_CLI_CORE_VERSION = '0.61.0';
const CHUNK = 40;

function cacheDir() {
  const root = process.env.LOOPGUARD_BENCH_CACHE ?? path.join(os.homedir(), '.cache', 'loopguard-bench');
  return path.join(root, `gemini-cli-core-${GEMINI_CLI_CORE_VERSION}`);
}

/** Installs the pinned package when missing and returns the LoopDetectionService class. */
export async function loadGeminiLoopDetectionService() {
  const dir = cacheDir();
  const file = path.join(
    dir,
    'node_modules/@google/gemini-cli-core/dist/src/services/loopDetectionService.js',
  );
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'package.json'), '{"private":true}\n');
    process.stderr.write(`installing @google/gemini-cli-core@${GEMINI_CLI_CORE_VERSION} into ${dir} ...\n`);
    execFileSync(
      'npm',
      [
        'install',
        '--no-audit',
        '--no-fund',
        '--ignore-scripts',
        `@google/gemini-cli-core@${GEMINI_CLI_CORE_VERSION}`,
      ],
      { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] },
    );
  }
  const module = await import(pathToFileURL(file).href);
  return module.LoopDetectionService;
}

/** Only what the service reads: detection on, telemetry off. */
const config = { getDisableLoopDetection: () => false, getUsageStatisticsEnabled: () => false };

/**
 * One run's Gemini detector. Actions become tool-call requests; messages are streamed as content
 * events of 40 characters (the service judges each content event on its own, as a model stream
 * arrives); observations are not seen by the service. A detection ends the turn: 'stop'.
 */
export class GeminiPeer {
  /**
   * @param keepDetecting - after a detection, clear it and go on judging (the speed benchmark: a
   *   latched service answers at once and would measure nothing).
   */
  constructor(LoopDetectionService, { keepDetecting = false } = {}) {
    this.service = new LoopDetectionService({ config });
    this.keepDetecting = keepDetecting;
    this.calls = 0;
  }

  detected() {
    if (this.keepDetecting) this.service.clearDetection();
    return 'stop';
  }

  observe(step) {
    if (step.type === 'action') {
      const args = typeof step.input === 'string' ? { command: step.input } : step.input;
      const result = this.service.addAndCheck({
        type: 'tool_call_request',
        value: { callId: `call-${this.calls++}`, name: step.tool, args },
      });
      return result.count > 0 ? this.detected() : 'continue';
    }
    if (step.type === 'message') {
      for (let at = 0; at < step.text.length; at += CHUNK) {
        const result = this.service.addAndCheck({ type: 'content', value: step.text.slice(at, at + CHUNK) });
        if (result.count > 0) return this.detected();
      }
    }
    return 'continue';
  }
}
