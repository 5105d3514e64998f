import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['packages/*/test/**/*.test.ts', 'docs/**/*.test.ts', 'scripts/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // the built CLI a test runs inherits this: no scan cache in the user's home (scanCache.test.ts
    // turns it on with a home of its own), nor the hook's told sessions (unguardedNotice.test.ts)
    env: {
      LOOPGUARD_SCAN_CACHE: 'off',
      XDG_STATE_HOME: mkdtempSync(join(tmpdir(), 'loopguard-test-state-')),
    },
  },
});
