import { describe, expect, it } from 'vitest';
import { RecentMemo } from '../../src/steps/history/recentMemo.js';

describe('RecentMemo', () => {
  it('computes a pair once while it is among the recent ones, and again once it is not', () => {
    const memo = new RecentMemo<string>(2);
    const calls: string[] = [];
    const get = (tool: string, text: string) =>
      memo.get(tool, text, () => {
        calls.push(`${tool}:${text}`);
        return `${tool}/${text}`;
      });
    expect(get('bash', 'ls')).toBe('bash/ls');
    expect(get('bash', 'ls')).toBe('bash/ls');
    expect(get('bash', 'pwd')).toBe('bash/pwd');
    expect(get('bash', 'ls')).toBe('bash/ls');
    expect(calls).toEqual(['bash:ls', 'bash:pwd']);
    // A third pair replaces the oldest: `ls` is computed again.
    get('bash', 'cat a');
    get('bash', 'ls');
    expect(calls).toEqual(['bash:ls', 'bash:pwd', 'bash:cat a', 'bash:ls']);
  });

  it('tells pairs apart by tool and by text, whatever their concatenation', () => {
    const memo = new RecentMemo<string>(8);
    expect(memo.get('a\u0000b', 'c', () => 'first')).toBe('first');
    expect(memo.get('a', 'b\u0000c', () => 'second')).toBe('second');
    expect(memo.get('grep', 'x', () => 'grep')).toBe('grep');
    expect(memo.get('find', 'x', () => 'find')).toBe('find');
    expect(memo.get('grep', 'y', () => 'other')).toBe('other');
  });
});

describe('RecentMemo.find and remember', () => {
  it('finds what was remembered, and a pair remembered again takes its new answer in place', () => {
    const memo = new RecentMemo<number>(2);
    expect(memo.find('', 'a')).toBeUndefined();
    memo.remember('', 'a', 1);
    memo.remember('', 'b', 2);
    memo.remember('', 'a', 3);
    expect(memo.find('', 'a')).toBe(3);
    // `a` was replaced in place: `b` is still remembered.
    expect(memo.find('', 'b')).toBe(2);
    memo.remember('', 'c', 4);
    expect(memo.find('', 'a')).toBeUndefined();
    expect(memo.find('', 'c')).toBe(4);
  });
});
