import { describe, expect, it } from 'vitest';
import { RecentCounts } from './recent-counts.js';

const text = (n: number, fill = 'a') => fill.repeat(n);

describe('RecentCounts', () => {
  it('gives back the count kept for the very same text, and nothing for another', () => {
    const recent = new RecentCounts({ minTextChars: 4 });
    recent.set('{"id":1}', 5);
    expect(recent.get('{"id":1}')).toBe(5);
    expect(recent.get('{"id":2}')).toBeUndefined();
  });

  it('keeps neither texts shorter than the minimum nor longer than one text may be', () => {
    const recent = new RecentCounts({ minTextChars: 10, maxTextChars: 100 });
    recent.set(text(9), 1);
    recent.set(text(101), 1);
    expect(recent.size).toBe(0);
    expect(recent.keeps(text(10))).toBe(true);
    expect(recent.keeps(text(100))).toBe(true);
  });

  it('holds at most its characters, letting the least recently used texts go first', () => {
    const recent = new RecentCounts({ maxChars: 300, minTextChars: 1 });
    recent.set(text(100, 'a'), 1);
    recent.set(text(100, 'b'), 2);
    recent.set(text(100, 'c'), 3);
    // Read again, 'a' becomes the most recent: 'b' is now the oldest and goes first.
    expect(recent.get(text(100, 'a'))).toBe(1);
    recent.set(text(100, 'd'), 4);
    expect(recent.get(text(100, 'b'))).toBeUndefined();
    expect(recent.get(text(100, 'a'))).toBe(1);
    expect(recent.get(text(100, 'c'))).toBe(3);
    expect(recent.get(text(100, 'd'))).toBe(4);
    expect(recent.chars).toBe(300);
  });

  it('counts a text kept twice once', () => {
    const recent = new RecentCounts({ minTextChars: 1 });
    recent.set(text(50), 7);
    recent.set(text(50), 7);
    expect(recent.size).toBe(1);
    expect(recent.chars).toBe(50);
  });
});
