import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { claudeHook } from '../src/hook/claudeHook.js';
import { geminiHook } from '../src/hook/geminiHook.js';
import type { HookEvent, HookReply } from '../src/hook/hookEvent.js';
import { withoutAllow } from '../src/hook/runHook.js';

const event = (kind: 'before_tool' | 'after_tool', eventName: string): HookEvent =>
  kind === 'before_tool'
    ? { kind, eventName, sessionId: 's', projectDir: '/p', tool: 'Bash', input: 'ls' }
    : {
        kind,
        eventName,
        sessionId: 's',
        projectDir: '/p',
        tool: 'Bash',
        input: 'ls',
        output: '',
        error: true,
      };

const reply: fc.Arbitrary<HookReply> = fc.oneof(
  fc.constant({ kind: 'silent' as const }),
  fc.record({ kind: fc.constant('nudge' as const), message: fc.string() }),
  fc.record({
    kind: fc.constant('stop' as const),
    message: fc.string(),
    stopReason: fc.string(),
    denied: fc.boolean(),
  }),
);

describe('loopguard never answers allow', () => {
  it('no reply of either CLI, whatever its text, lets a call past the permission prompt; withoutAllow keeps them', () => {
    fc.assert(
      fc.property(
        reply,
        fc.constantFrom('before_tool', 'after_tool') as fc.Arbitrary<'before_tool' | 'after_tool'>,
        (r, kind) => {
          for (const [dialect, name] of [
            [claudeHook, kind === 'before_tool' ? 'PreToolUse' : 'PostToolUse'],
            [geminiHook, kind === 'before_tool' ? 'BeforeTool' : 'AfterTool'],
          ] as const) {
            const text = dialect.render(event(kind, name), r);
            expect(withoutAllow(text)).toBe(text);
            if (text === '') continue;
            const parsed = JSON.parse(text);
            expect(parsed.hookSpecificOutput?.permissionDecision ?? 'deny').toBe('deny');
            expect(['deny', 'block', undefined]).toContain(parsed.decision);
          }
        },
      ),
    );
  });

  it('withoutAllow silences any reply that would allow', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('permissionDecision', 'decision', 'behavior'),
        fc.constantFrom('allow', 'approve'),
        fc.string(),
        (key, value, reason) => {
          const text = JSON.stringify({
            hookSpecificOutput: { hookEventName: 'PreToolUse', [key]: value, reason },
          });
          expect(withoutAllow(text)).toBe('');
        },
      ),
    );
  });
});
