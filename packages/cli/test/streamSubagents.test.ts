import { describe, expect, it } from 'vitest';
import { StepStreamWatcher } from '../src/run/StepStreamWatcher.js';

// `claude -p --output-format stream-json --verbose` writes a subagent's events in the session's
// stream, each with the id of the Task call that started it (`parent_tool_use_id`).
const call = (id: string, command: string, parent: string | null) =>
  `${JSON.stringify({
    type: 'assistant',
    message: { role: 'assistant', content: [{ type: 'tool_use', id, name: 'Bash', input: { command } }] },
    parent_tool_use_id: parent,
  })}\n`;
const failed = (id: string, output: string, parent: string | null) =>
  `${JSON.stringify({
    type: 'user',
    message: {
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: id, content: output, is_error: true }],
    },
    parent_tool_use_id: parent,
  })}\n`;
const ERROR = 'Error: expected 2, got 3';

describe('run --agent-stream claude: a subagent is a run of its own', () => {
  it('subagents that each run the failing tests once, beside the session, are not one loop', () => {
    const watcher = new StepStreamWatcher('claude', 'r1');
    for (const parent of [null, 'task-a', 'task-b', 'task-c', 'task-d']) {
      watcher.push(call(`c-${parent}`, 'npm test', parent));
      watcher.push(failed(`c-${parent}`, ERROR, parent));
    }
    watcher.end();
    expect(watcher.nudges).toEqual([]);
    expect(watcher.stopVerdict).toBeNull();
  });

  it("a subagent's own loop is nudged, then stops the iteration, while the session's calls go between", () => {
    const watcher = new StepStreamWatcher('claude', 'r1');
    for (let i = 1; i <= 4 && watcher.stopVerdict === null; i++) {
      watcher.push(call(`s${i}`, 'npm test', 'task-a'));
      watcher.push(failed(`s${i}`, ERROR, 'task-a'));
      watcher.push(call(`m${i}`, `cat notes_${i}.md`, null));
    }
    expect(watcher.nudges).toHaveLength(1);
    expect(watcher.stopVerdict?.loopType).toBe('same_error');
    expect(watcher.stopSignal.aborted).toBe(true);
  });
});
