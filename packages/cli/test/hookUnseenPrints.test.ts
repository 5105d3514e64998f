import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { claudeEvent, hookCall, hookState, tempProject } from './hookHelpers.js';

/**
 * Debug output that never shows, through `loopguard hook claude`: a hook process per event, the
 * detector restored from its snapshot each time, the edit's print read from Claude Code's `Edit`
 * between its `PreToolUse` and its `PostToolUse`.
 */
describe('loopguard hook claude: the agent keeps editing code that does not run', () => {
  /** One Claude Code call: its `PreToolUse` and `PostToolUse` events. */
  const call = (dir: string, id: string, tool: string, input: Record<string, unknown>, response: unknown) => {
    const fields = { tool_name: tool, tool_input: input, tool_use_id: id };
    return [
      claudeEvent(dir, 's1', 'PreToolUse', fields),
      claudeEvent(dir, 's1', 'PostToolUse', { ...fields, tool_response: response }),
    ];
  };
  const loader = (dir: string) => join(dir, 'src', 'loader.py');
  /** A round: a debug print added to the code under test, then the repro script, which never shows it. */
  const round = (dir: string, n: number) => [
    ...call(
      dir,
      `toolu_edit_${n}`,
      'Edit',
      {
        file_path: loader(dir),
        old_string: `names_${n} = collect()`,
        new_string: `names_${n} = collect()\nprint(f"Debug - names in round ${n}: {names_${n}}")`,
      },
      { filePath: loader(dir), oldString: `names_${n} = collect()`, structuredPatch: [] },
    ),
    ...call(
      dir,
      `toolu_run_${n}`,
      'Bash',
      { command: 'python3 reproduce.py', description: 'Run the repro' },
      { stdout: `Checked ${n} apps\nUnmigrated apps: {'test_app'}`, stderr: '', interrupted: false },
    ),
  ];

  /** The non-empty replies to `events`, in order, up to the session's end. */
  const replies = async (dir: string, events: unknown[]) => {
    const spoken: Array<{ event: string; reply: Record<string, unknown> }> = [];
    for (const event of events) {
      const { code, stdout } = await hookCall(dir, 'claude', event);
      expect(code).toBe(0);
      if (stdout === '') continue;
      spoken.push({
        event: (event as { hook_event_name: string }).hook_event_name,
        reply: JSON.parse(stdout),
      });
      if (stdout.includes('"continue":false')) break;
    }
    return spoken;
  };

  it('prints typed into the code under test that the repro never shows: nudged after the third run, stopped after the fourth', async () => {
    const dir = tempProject();
    const write = call(
      dir,
      'toolu_write',
      'Write',
      {
        file_path: join(dir, 'reproduce.py'),
        content: 'from src.loader import load\nprint("Checked", load())\n',
      },
      { type: 'create', filePath: join(dir, 'reproduce.py') },
    );
    const spoken = await replies(dir, [...write, ...[1, 2, 3, 4].flatMap((n) => round(dir, n))]);
    // Nudged after the third run; the fourth runs (an edit came before it: its result cannot be
    // foreseen from the last one) and its result stops the session.
    expect(spoken.map((s) => s.event)).toEqual(['PostToolUse', 'PostToolUse']);
    const nudge = spoken[0]?.reply.hookSpecificOutput as { additionalContext: string };
    expect(nudge.additionalContext).toMatch(/^Loop detected \(near_duplicate\): 3 runs of `python/);
    expect(nudge.additionalContext).toContain('did not show the debug output added to the code under test');
    expect(spoken[1]?.reply).toMatchObject({
      continue: false,
      hookSpecificOutput: { hookEventName: 'PostToolUse' },
    });
    expect(spoken[1]?.reply.stopReason).toMatch(
      /^loopguard: Stopped \(near_duplicate\): the loop went on after the nudge; 4 runs of `python reproduce.py` did not show the debug output/,
    );
    expect(hookState(dir).sessions).toMatchObject([{ session_id: 's1', nudges: 1, stops: 1 }]);
  });

  it('the fix written to another file between the runs: no nudge, no stop', async () => {
    const dir = tempProject();
    const write = call(
      dir,
      'toolu_write',
      'Write',
      {
        file_path: join(dir, 'reproduce.py'),
        content: 'from src.loader import load\nprint("Checked", load())\n',
      },
      { type: 'create', filePath: join(dir, 'reproduce.py') },
    );
    const executor = join(dir, 'src', 'executor.py');
    const fix = (n: number) =>
      call(
        dir,
        `toolu_fix_${n}`,
        'Edit',
        {
          file_path: executor,
          old_string: `plan_${n} = build()`,
          new_string: `plan_${n} = build(clean=True)`,
        },
        { filePath: executor, oldString: `plan_${n} = build()`, structuredPatch: [] },
      );
    // Each round edits the code whose print never shows and the other file: the result may answer either.
    const events = [...write, ...[1, 2, 3, 4].flatMap((n) => [...fix(n), ...round(dir, n)])];
    expect(await replies(dir, events)).toEqual([]);
  });

  it('a search of the figure for the id it set that finds nothing after each change: nudged after the third, stopped after the fourth', async () => {
    const dir = tempProject();
    const backend = join(dir, 'lib', 'backend_svg.py');
    const round = (n: number) => {
      const search = {
        tool_name: 'Bash',
        tool_input: {
          command: `python reproduce.py && grep -A 2 'annotation_1' example.svg`,
          description: 'Check the figure',
        },
        tool_use_id: `toolu_search_${n}`,
      };
      return [
        ...call(
          dir,
          `toolu_read_${n}`,
          'Read',
          { file_path: join(dir, 'lib', `artist_${n}.py`) },
          {
            type: 'text',
            file: {
              filePath: join(dir, 'lib', `artist_${n}.py`),
              content: `def set_gid_${n}(self, gid):\n    self._gid_${n} = gid`,
            },
          },
        ),
        ...call(
          dir,
          `toolu_edit_${n}`,
          'Edit',
          { file_path: backend, old_string: `gid_${n} = None`, new_string: `gid_${n} = artist.get_gid()` },
          { filePath: backend, oldString: `gid_${n} = None`, structuredPatch: [] },
        ),
        claudeEvent(dir, 's1', 'PreToolUse', search),
        claudeEvent(dir, 's1', 'PostToolUseFailure', {
          ...search,
          error: `Exit code 1\nSaved figure ${n}`,
          is_interrupt: false,
        }),
      ];
    };
    const spoken = await replies(dir, [1, 2, 3, 4].flatMap(round));
    expect(spoken.map((s) => s.event)).toEqual(['PostToolUseFailure', 'PostToolUseFailure']);
    const nudge = spoken[0]?.reply.hookSpecificOutput as { additionalContext: string };
    expect(nudge.additionalContext).toMatch(
      /^Loop detected \(near_duplicate\): 3 searches of `example.svg`, each after a change to the code under test, found nothing/,
    );
    expect(spoken[1]?.reply).toMatchObject({
      continue: false,
      hookSpecificOutput: { hookEventName: 'PostToolUseFailure' },
    });
  });
});
