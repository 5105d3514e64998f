import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { logFailure } from '../src/hook/hookLog.js';
import { tempProject } from './hookHelpers.js';

// trust70: a failure's reason can carry text the model chose (a path, a configuration value, a
// transcript's line). Written raw into `.loopguard/hook.log`, its escape sequences ran in the
// user's terminal at `cat .loopguard/hook.log` or `tail -f`: a title set, the clipboard written
// (OSC 52), the screen cleared over what loopguard wrote before.

describe('hook.log: the reasons it records are printable', () => {
  it('escapes the control characters of a failure reason', () => {
    const dir = tempProject();
    const reason = 'bad value \u001b]52;c;ZWNobyBwd25lZA==\u0007 then \u001b[2J\u001b[H\u009b31m cleared';
    logFailure(dir, 'claude', undefined, new Error(reason), Date.UTC(2026, 11, 2));
    const log = readFileSync(join(dir, '.loopguard', 'hook.log'), 'utf8');
    expect(log.split('\n')).toHaveLength(2); // one line, then the end of the file
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what it looks for
    expect(log.slice(0, -1)).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    expect(log).toContain(
      'bad value \uFFFD]52;c;ZWNobyBwd25lZA==\uFFFD then \uFFFD[2J\uFFFD[H\uFFFD31m cleared',
    );
  });
});
