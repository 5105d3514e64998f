import { describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../../src/kernel/logger.js';

describe('silentLogger', () => {
  it('writes nothing, even after a caller raises the level of the logger it shares or makes a child', () => {
    const write = vi.spyOn(process.stdout, 'write');
    try {
      const first = silentLogger();
      first.level = 'trace';
      first.error('not shown');
      silentLogger().child({ run: 1 }).fatal('not shown either');
      expect(write).not.toHaveBeenCalled();
    } finally {
      write.mockRestore();
    }
  });

  it('is made once: every detector without a logger shares it', () => {
    expect(silentLogger()).toBe(silentLogger());
  });
});
