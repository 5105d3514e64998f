import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_EXEMPT_COMMANDS, type Step, setStepLoopDetectionEnabled } from '../../src/entries/steps.js';
import { isExemptAction } from '../../src/steps/actions/exemptions.js';
import { COUNTS_ONLY, detections, feed, makeStepDetector, turn } from './helpers.js';

const times = (count: number, make: (i: number) => Step[]): Step[] =>
  Array.from({ length: count }, (_, i) => make(i)).flat();

describe('real work is not a loop', () => {
  it('polling a process whose output changes', () => {
    const { detector } = makeStepDetector();
    const steps = times(20, (i) => turn('cat build.log | tail -1', `compiled ${i * 5} of 100 modules`));
    expect(detections(feed(detector, steps))).toEqual([]);
  });

  it('re-running the same test after each edit while its failure moves', () => {
    const { detector } = makeStepDetector();
    const steps = times(8, (i) => [
      ...turn(`sed -i 's/limit = ${i}/limit = ${i + 1}/' src/parse.py`, ''),
      ...turn('pytest tests/test_parse.py', `FAILED tests/test_parse.py::test_limit - assert ${i} == 8`, {
        error: true,
      }),
    ]);
    expect(detections(feed(detector, steps))).toEqual([]);
  });

  it('running one command over many different files', () => {
    const { detector } = makeStepDetector();
    const steps = times(30, (i) => turn(`git mv src/old/file${i}.ts src/new/file${i}.ts`, ''));
    expect(detections(feed(detector, steps))).toEqual([]);
  });

  it('toggling a setting to compare results', () => {
    const { detector } = makeStepDetector();
    const steps = [
      ...turn("sed -i 's/CACHE=off/CACHE=on/' .env", ''),
      ...turn('npm run bench', 'median 12.1 ms'),
      ...turn("sed -i 's/CACHE=on/CACHE=off/' .env", ''),
      ...turn('npm run bench', 'median 48.9 ms'),
    ];
    expect(detections(feed(detector, steps))).toEqual([]);
  });

  it('the same reasoning sentence before each different command', () => {
    const { detector } = makeStepDetector();
    const steps = times(10, (i) =>
      turn(`grep -n def src/mod${i}.py`, `${i}: def f${i}()`, { reason: 'Let me look at the next module.' }),
    );
    expect(detections(feed(detector, steps))).toEqual([]);
  });
});

describe('exemptions', () => {
  it.each([
    'sleep 30',
    'watch -n 5 kubectl get pods',
    'wait',
    'tail -f server.log',
    'gh run watch 123',
    'gh run view 123 --log',
    'gh pr checks 42',
    'kubectl rollout status deploy/web',
  ])('%s is exempt by default', (command) => {
    const { detector } = makeStepDetector();
    expect(isExemptAction({ tools: [], commands: DEFAULT_EXEMPT_COMMANDS }, 'bash', command)).toBe(true);
    expect(
      detections(
        feed(
          detector,
          times(10, () => turn(command, 'still running')),
        ),
      ),
    ).toEqual([]);
  });

  // exempt61: an exemption covers a command line only when every command in it waits
  const shapes = (command: string): Step[][] => [
    times(10, () => turn(command, 'cat: missing.txt: No such file or directory', { error: true })),
    times(10, () =>
      turn({ command, description: 'Wait, then read' }, 'cat: missing.txt: No such file or directory', {
        tool: 'Bash',
        error: true,
      }),
    ),
  ];
  it.each([
    'sleep 2; cat missing.txt',
    'sleep 2 && cat missing.txt',
    'sleep 2\ncat missing.txt',
    'sleep 2 & cat missing.txt',
    'sleep 2 | cat missing.txt',
    'cat missing.txt && gh run view 123',
    'cat missing.txt # tail -f server.log',
    // trust62: a waiting command's argument that runs another command (a substitution)
    'sleep 0 $(cat missing.txt)',
    'sleep 0 `cat missing.txt`',
    'timeout 5 sleep "$(cat missing.txt 2>&1)"',
    'sleep 1 <(cat missing.txt)',
    'sleep 2 && gh run view "$(cat missing.txt)"',
  ])('exempt61: a loop behind a waiting command is judged (%j)', (command) => {
    expect(isExemptAction({ tools: [], commands: DEFAULT_EXEMPT_COMMANDS }, 'bash', command)).toBe(false);
    for (const steps of shapes(command)) {
      expect(detections(feed(makeStepDetector().detector, steps))[0]).toMatchObject({
        loopType: 'same_error',
      });
    }
  });

  it.each([
    'sleep 30 && gh run view 123',
    'sleep 5; wait',
    '# wait for CI\ngh run watch 123',
    'timeout 60 tail -f server.log 2>&1',
    'sleep $((RANDOM % 5))',
    'sleep "$DELAY"',
  ])('exempt61: a command line that only waits stays exempt (%j)', (command) => {
    expect(isExemptAction({ tools: [], commands: DEFAULT_EXEMPT_COMMANDS }, 'bash', command)).toBe(true);
    for (const steps of shapes(command))
      expect(detections(feed(makeStepDetector().detector, steps))).toEqual([]);
  });

  it('exempt steps neither count nor break a loop in progress', () => {
    const { detector } = makeStepDetector(COUNTS_ONLY);
    const verdicts = feed(detector, [
      ...turn('curl localhost:3000', 'refused'),
      ...turn('sleep 5', ''),
      ...turn('curl localhost:3000', 'refused'),
      ...turn('curl localhost:3000', 'refused'),
    ]);
    expect(detections(verdicts)[0]).toMatchObject({ loopType: 'repeated_action', repeats: 3 });
  });

  it('BashOutput (Claude Code polling a background shell) is exempt by default', () => {
    const { detector } = makeStepDetector();
    expect(
      detections(
        feed(
          detector,
          times(10, () => turn({ bash_id: 'b1' }, 'Running...', { tool: 'BashOutput' })),
        ),
      ),
    ).toEqual([]);
  });

  it('exemptTools replaces the default tools', () => {
    const steps = times(5, () => turn({ bash_id: 'b1' }, 'Running...', { tool: 'BashOutput' }));
    expect(detections(feed(makeStepDetector({ exemptTools: [] }).detector, steps))).not.toEqual([]);
    const custom = times(5, () => turn({ query: 'status' }, 'pending', { tool: 'CiStatus' }));
    expect(detections(feed(makeStepDetector({ exemptTools: ['CiStatus'] }).detector, custom))).toEqual([]);
  });

  it('refused51: a waiting command the CLI refused before it ran is judged (no time passed)', () => {
    const refused = (command: string): Step[] => [
      { type: 'action', tool: 'Bash', input: { command } },
      { type: 'observation', tool: 'Bash', output: `Blocked: ${command}.`, error: true, refused: true },
    ];
    const blocked = detections(
      feed(
        makeStepDetector().detector,
        times(6, () => refused('sleep 60')),
      ),
    );
    expect(blocked[0]).toMatchObject({ loopType: 'same_error' });
    // the same calls that ran and failed are waiting, as before
    const ran = times(6, () =>
      turn({ command: 'sleep 60' }, 'Blocked: sleep 60.', { tool: 'Bash', error: true }),
    );
    expect(detections(feed(makeStepDetector().detector, ran))).toEqual([]);
  });

  it('exemptCommands replaces the default patterns', () => {
    const poll = times(5, () => turn('./scripts/wait-for-db.sh', 'waiting'));
    expect(detections(feed(makeStepDetector().detector, poll))).not.toEqual([]);
    expect(detections(feed(makeStepDetector({ exemptCommands: [/wait-for-db/] }).detector, poll))).toEqual(
      [],
    );
    const sleeps = times(5, () => turn('sleep 1', ''));
    expect(detections(feed(makeStepDetector({ exemptCommands: [] }).detector, sleeps))).not.toEqual([]);
  });
});

describe('switches', () => {
  afterEach(() => setStepLoopDetectionEnabled(true));
  const loop = times(6, () => turn('ls', 'a'));

  it('enabled: false turns one run off', () => {
    const { detector } = makeStepDetector({ enabled: false });
    expect(detector.isEnabled).toBe(false);
    expect(detections(feed(detector, loop))).toEqual([]);
    detector.setEnabled(true);
    expect(detections(feed(detector, loop))).not.toEqual([]);
  });

  it('the global switch turns every detector off', () => {
    const { detector } = makeStepDetector();
    setStepLoopDetectionEnabled(false);
    expect(detections(feed(detector, loop))).toEqual([]);
    setStepLoopDetectionEnabled(true);
    expect(detections(feed(detector, loop))).not.toEqual([]);
  });
});
