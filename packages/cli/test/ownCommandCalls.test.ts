import { describe, expect, it } from 'vitest';
import { OTHER_SESSIONS_REFUSED, OWN_STATE_REFUSED, ownStateRefusal } from '../src/hook/ownStateCall.js';
import { shellCall } from './hookHelpers.js';

// loopguard's own commands run by the model it guards (trust70): a hook timeout lowered (the hook
// then fails open), the hooks of the other scope taken out (`--replace`), a run's breaker closed or
// a run resumed, and other sessions' records read through `status`, `recoveries` or the dashboard.
// The event's session is `s`.

const LOWERS_OR_UNDOES = [
  'loopguard init claude --timeout 1',
  'loopguard init claude --timeout=0.5',
  'npx loopguard init gemini --project --timeout 9',
  'node ~/src/loopguard/packages/cli/dist/bin.js init codex --timeout 3',
  'loopguard init claude --timeout abc',
  'loopguard init claude --replace',
  'cd /tmp && loopguard init claude --status-line --replace',
  'loopguard reset r1',
  'loopguard resume r1 --json',
  'sudo loopguard reset r2',
  'bash -c "loopguard resume r1"',
];

const READS_OTHER_SESSIONS = [
  'loopguard status',
  'loopguard status --json',
  'loopguard status --session victim',
  'loopguard status --session=victim --json',
  'loopguard status --verdict stopped',
  'loopguard status --db /tmp/other.db --session s2',
  'loopguard recoveries',
  'loopguard recoveries --topic call_refused --json',
  'loopguard serve',
  'loopguard serve --port 8080 &',
  'pnpm exec loopguard status --session victim',
  'LOOPGUARD_X=1 loopguard status | head',
];

const LEFT_ALONE = [
  'loopguard init claude',
  'loopguard init claude --timeout 10',
  'loopguard init gemini --timeout=30',
  'loopguard status --session s',
  'loopguard status --session=s --json',
  'loopguard status --help',
  'loopguard serve --help',
  'loopguard runs',
  'loopguard scan',
  'grep -rn "loopguard status" docs/',
  'git commit -m "docs: loopguard status --session shows one session; loopguard reset closes a breaker"',
  'echo "run loopguard serve to see the dashboard"',
  'rg "loopguard recoveries" packages/',
];

describe("loopguard's own commands that weaken it or read other sessions are refused (trust70)", () => {
  it.each(LOWERS_OR_UNDOES)('%s', (command) => {
    expect(ownStateRefusal(shellCall(command))).toBe(OWN_STATE_REFUSED);
  });

  it.each(READS_OTHER_SESSIONS)('%s', (command) => {
    expect(ownStateRefusal(shellCall(command))).toBe(OTHER_SESSIONS_REFUSED);
  });

  it.each(LEFT_ALONE)('left alone: %s', (command) => {
    expect(ownStateRefusal(shellCall(command))).toBeUndefined();
  });

  it('says why, in the words the model reads', () => {
    expect(OTHER_SESSIONS_REFUSED).toMatch(/^loopguard refused this call: /);
    expect(OTHER_SESSIONS_REFUSED).toContain('other sessions');
  });
});
