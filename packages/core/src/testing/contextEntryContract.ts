import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidInputError } from '../kernel/errors.js';
import { type ContextEntry, RECOVERY_TOPICS } from '../model/contextEntry.js';
import { type ContractSubject, T0 } from './contractSubject.js';

/**
 * The contract of a state machine's context entries (`addContextEntry`, `listContextEntries`).
 * @param create - opens a fresh adapter under test (empty storage, manual clock at {@link T0}) for each test.
 */
export function contextEntryContract(create: () => Promise<ContractSubject>): void {
  let a: ContractSubject;
  beforeEach(async () => {
    a = await create();
  });
  afterEach(async () => {
    await a.close();
  });
  describe('StateMachine: context entries', () => {
    it('addContextEntry assigns distinct ids and the clock time, with defaults', async () => {
      const first = await a.stateMachine.addContextEntry({
        entryType: 'learning',
        topic: 'notes',
        content: 'one',
      });
      a.clock.advance(10);
      const second = await a.stateMachine.addContextEntry({
        entryType: 'decision',
        topic: 'loop_recovery',
        content: 'two',
        relatedTasks: ['T1', 'T2'],
        confidence: 0.5,
        metadata: { evidence: [{ at: 1 }] },
      });
      expect(first).toEqual({
        id: first.id,
        timestamp: T0,
        entryType: 'learning',
        topic: 'notes',
        content: 'one',
        relatedTasks: [],
        confidence: 1,
        metadata: {},
      });
      expect(typeof first.id).toBe('string');
      expect(second.id).not.toBe(first.id);
      expect(second).toMatchObject({ timestamp: T0 + 10, relatedTasks: ['T1', 'T2'], confidence: 0.5 });
      expect(second.metadata).toEqual({ evidence: [{ at: 1 }] });
      expect(Object.isFrozen(second)).toBe(true);
      expect(Object.isFrozen(second.relatedTasks)).toBe(true);
      expect(Object.isFrozen(second.metadata)).toBe(true);
    });

    it('addContextEntry rejects bad input and writes nothing', async () => {
      const bad = [
        { entryType: 'opinion', topic: 't', content: 'c' },
        { entryType: 'decision', topic: '', content: 'c' },
        { entryType: 'decision', topic: 't', content: 42 },
        { entryType: 'decision', topic: 't', content: 'c', confidence: 2 },
        { entryType: 'decision', topic: 't', content: 'c', relatedTasks: [1] },
        { entryType: 'decision', topic: 't', content: 'c', metadata: [] },
      ];
      for (const input of bad) {
        await expect(async () => a.stateMachine.addContextEntry(input as never)).rejects.toThrow(
          InvalidInputError,
        );
      }
      expect(await a.stateMachine.listContextEntries()).toEqual([]);
    });

    async function seedEntries(): Promise<void> {
      const add = (topic: string, relatedTasks: string[], step = 1000) => {
        a.clock.advance(step);
        return a.stateMachine.addContextEntry({ entryType: 'decision', topic, content: topic, relatedTasks });
      };
      await add('notes', ['T1']); // T0+1000
      await add('loop_recovery', ['T1']); // T0+2000
      await add('unblock_authority', ['T2']); // T0+3000
      await add('notes', ['T2', 'T1']); // T0+4000
      await add('loop_escalation', ['T1', 'T1']); // T0+5000
      await add('other', []); // T0+6000
    }
    const contents = async (query: Parameters<ContractSubject['stateMachine']['listContextEntries']>[0]) =>
      (await a.stateMachine.listContextEntries(query)).map((e) => `${e.topic}@${e.timestamp - T0}`);

    it('lists newest first, with topic, task, since and limit filters', async () => {
      await seedEntries();
      expect(await contents({})).toEqual([
        'other@6000',
        'loop_escalation@5000',
        'notes@4000',
        'unblock_authority@3000',
        'loop_recovery@2000',
        'notes@1000',
      ]);
      expect(await contents({ topics: RECOVERY_TOPICS })).toEqual([
        'loop_escalation@5000',
        'unblock_authority@3000',
        'loop_recovery@2000',
      ]);
      expect(await contents({ topics: ['notes'] })).toEqual(['notes@4000', 'notes@1000']);
      expect(await contents({ topics: ['notes', 'other'] })).toEqual([
        'other@6000',
        'notes@4000',
        'notes@1000',
      ]);
      expect(await contents({ topics: ['notes', 'loop_recovery'] })).toEqual([
        'notes@4000',
        'loop_recovery@2000',
        'notes@1000',
      ]);
      expect(await contents({ topics: ['absent'] })).toEqual([]);
      expect(await contents({ topics: [] })).toEqual([]);
      expect(await contents({ taskId: 'T1' })).toEqual([
        'loop_escalation@5000',
        'notes@4000',
        'loop_recovery@2000',
        'notes@1000',
      ]);
      expect(await contents({ taskId: 'T2' })).toEqual(['notes@4000', 'unblock_authority@3000']);
      expect(await contents({ taskId: 'T3' })).toEqual([]);
      expect(await contents({ taskId: 'T1', topics: RECOVERY_TOPICS, limit: 1 })).toEqual([
        'loop_escalation@5000',
      ]);
      expect(await contents({ taskId: 'T1', topics: ['notes'] })).toEqual(['notes@4000', 'notes@1000']);
      expect(await contents({ since: T0 + 4000 })).toEqual([
        'other@6000',
        'loop_escalation@5000',
        'notes@4000',
      ]);
      expect(await contents({ since: T0 + 4000, taskId: 'T1' })).toEqual([
        'loop_escalation@5000',
        'notes@4000',
      ]);
      expect(await contents({ since: T0 + 2000, topics: RECOVERY_TOPICS, limit: 2 })).toEqual([
        'loop_escalation@5000',
        'unblock_authority@3000',
      ]);
      expect(await contents({ limit: 2 })).toEqual(['other@6000', 'loop_escalation@5000']);
      expect(await contents({ limit: 0 })).toEqual([]);
    });

    it('breaks timestamp ties by insertion order (newest inserted first)', async () => {
      const ids: string[] = [];
      for (const topic of ['a', 'b', 'c']) {
        const entry = await a.stateMachine.addContextEntry({
          entryType: 'learning',
          topic,
          content: topic,
          relatedTasks: ['T'],
        });
        ids.push(entry.id);
      }
      expect((await a.stateMachine.listContextEntries()).map((e) => e.id)).toEqual([...ids].reverse());
      expect((await a.stateMachine.listContextEntries({ taskId: 'T' })).map((e) => e.id)).toEqual(
        [...ids].reverse(),
      );
    });

    it('returns entries that callers cannot use to change storage', async () => {
      await a.stateMachine.addContextEntry({
        entryType: 'decision',
        topic: 't',
        content: 'c',
        relatedTasks: ['T1'],
      });
      const entry = (await a.stateMachine.listContextEntries())[0] as ContextEntry;
      expect(Object.isFrozen(entry)).toBe(true);
      expect(() => {
        (entry.relatedTasks as string[]).push('T2');
      }).toThrow(TypeError);
      expect(await a.stateMachine.listContextEntries({ taskId: 'T2' })).toEqual([]);
    });
  });
}
