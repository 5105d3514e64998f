import { existsSync, lstatSync } from 'node:fs';
import { Socket } from 'node:net';
import { Readable } from 'node:stream';
import { type HookSessionRecord, hookAgentProcess } from '@loopguard/sqlite';
import { claudeHook } from './claudeHook.js';
import { geminiHook } from './geminiHook.js';
import { guardSession } from './guardSession.js';
import type { HookDialect } from './hookEvent.js';
import { DEFAULT_DETECTOR_OPTIONS } from './quietDetectorOptions.js';
import { keptOpen, readBounded } from './readBounded.js';
import { readHookEvent } from './runHook.js';

/** The CLIs' tool calls of the made-up session: each CLI's shell tool, before and after it runs. */
const CALLS: Array<[HookDialect, before: string, after: string, tool: string]> = [
  [claudeHook, 'PreToolUse', 'PostToolUse', 'Bash'],
  [geminiHook, 'BeforeTool', 'AfterTool', 'run_shell_command'],
];

/**
 * Runs a hook call's work that touches nothing outside the process on a made-up session: events of
 * both CLIs read, the detector restored, fed until it nudges and stops, and snapshotted, the
 * replies rendered. Called while the startup snapshot is built (hookSnapshot.ts), so that the
 * functions a call runs are compiled in it rather than on every call; no state it leaves is read
 * by a call (the session is thrown away).
 */
export function warmUpHook(): void {
  for (const [dialect, before, after, tool] of CALLS) {
    let session: HookSessionRecord | null = null;
    const commands = [
      ...Array.from({ length: 40 }, (_, i) => `cat src/module_${i % 12}.py && pytest tests/test_${i}.py`),
      ...Array.from({ length: 6 }, () => 'pytest tests/test_same.py'),
    ];
    commands.forEach((command, i) => {
      const output = `line ${i} of the output\n`.repeat(1 + (i % 5));
      const base = { session_id: 'warm-up', cwd: '/warm-up', tool_name: tool, tool_input: { command } };
      for (const payload of [
        { ...base, hook_event_name: before, tool_use_id: `a${i}` },
        {
          ...base,
          hook_event_name: after,
          tool_use_id: `b${i}`,
          tool_response: { stdout: output, stderr: '', interrupted: false },
          timestamp: `2026-01-01T00:00:${String(i % 60).padStart(2, '0')}Z`,
        },
      ]) {
        const event = readHookEvent(dialect, JSON.stringify(payload), {}, '/warm-up');
        const { result, next } = guardSession(event, session, {
          agent: dialect.agent,
          detector: DEFAULT_DETECTOR_OPTIONS,
          record: () => {},
          now: () => 0,
        });
        dialect.render(event, result);
        if (next !== undefined) session = { ...next, createdAt: 0, updatedAt: 0 };
      }
    });
  }
}

/**
 * Runs node's own code that every call runs and the made-up session cannot: a socket made and
 * destroyed (a call's stdin on a pipe is a `net.Socket`), an event read from a made-up stream as a
 * call reads its stdin (node's stream code, ≈ 0.9 ms of a call's CPU), the file status calls the
 * project's checks make (`lstatSync`, `existsSync`, here of `/`), and the reading of the agent's process from `/proc`
 * that every call on a session makes (`hookAgentProcess`, which keeps nothing: its answer here, the
 * build's own parent, is thrown away; not `hookDatabase`'s `theAgentProcess`, which keeps it). Called
 * while the startup snapshot is built, like {@link warmUpHook}: their functions are then compiled
 * in the snapshot instead of on each call. Opens nothing that outlives the call (the socket has no
 * handle), so nothing is left for the snapshot to refuse.
 */
export function warmUpNode(): void {
  new Socket().destroy();
  const event = keptOpen(new Readable({ read() {} }));
  event.push(Buffer.from('{}'));
  event.push(null);
  void readBounded(event); // ends in the build's event loop, before the snapshot is taken
  lstatSync('/', { throwIfNoEntry: false });
  existsSync('/');
  hookAgentProcess();
}
