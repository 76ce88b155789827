import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pruneToFit, type TruncationCut } from './prune.js';

function prune(value: unknown, room: number) {
  const cuts: TruncationCut[] = [];
  const pruned = pruneToFit(value, room, cuts);
  return { pruned, cuts };
}

describe('pruneToFit', () => {
  it('keeps a value that fits untouched, with no cuts', () => {
    const value = { a: [1, 2, 3], b: 'text' };
    const { pruned, cuts } = prune(value, 100);
    expect(pruned?.value).toEqual(value);
    expect(cuts).toEqual([]);
  });

  it('trims arrays from the end and says how many items stayed', () => {
    const { pruned, cuts } = prune({ items: [10, 11, 12, 13, 14] }, '{"items":[10,11]}'.length);
    expect(JSON.stringify(pruned?.value)).toBe('{"items":[10,11]}');
    expect(cuts).toEqual([{ path: '$.items', unit: 'items', kept: 2, total: 5 }]);
  });

  it('shortens the string at the cut and never splits a surrogate pair or an escape', () => {
    const { pruned, cuts } = prune('ab😀"cd', 6);
    // "ab" + 😀 (2 code units) + quotes = 6 characters.
    expect(pruned?.value).toBe('ab😀');
    expect(cuts).toEqual([{ path: '$', unit: 'chars', kept: 4, total: 7 }]);
    expect(prune('a"b', 4).pruned?.value).toBe('a');
  });

  it('lists the outer cut before the inner one and quotes odd keys in paths', () => {
    const { cuts } = prune({ 'odd key': [{ text: 'x'.repeat(50) }, 2] }, 30);
    expect(cuts.map((cut) => cut.path)).toEqual(['$["odd key"]', '$["odd key"][0].text']);
  });

  it('drops a container that would keep none of its items, recording the cut on its parent', () => {
    const { pruned, cuts } = prune({ a: 1, b: [123456] }, 14);
    expect(JSON.stringify(pruned?.value)).toBe('{"a":1}');
    expect(cuts).toEqual([{ path: '$', unit: 'keys', kept: 1, total: 2 }]);
  });

  it('omits the root when not even an empty container fits', () => {
    expect(prune([1, 2], 1)).toEqual({ pruned: undefined, cuts: [{ path: '$', omitted: true }] });
  });

  it('treats a __proto__ key from the downstream as data', () => {
    const value = JSON.parse('{"__proto__":{"polluted":true},"b":"' + 'y'.repeat(40) + '"}');
    const { pruned } = prune(value, 40);
    expect(JSON.stringify(pruned?.value)).toMatch(/^\{"__proto__":\{"polluted":true\}/);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('ends the kept prefix at the first shortened item: nothing after a cut survives', () => {
    const orders = [1, 2, 3].map((id) => ({ id, status: 'shipped', lines: [{ sku: 'KB-100', quantity: id }] }));
    // Room for order 1, and for order 2 up to its status, but not for its lines.
    const room = JSON.stringify([orders[0], { id: 2, status: 'shipped' }]).length + 12;
    const { pruned, cuts } = prune(orders, room);
    expect(pruned?.value).toEqual([orders[0], { id: 2, status: 'shipped' }]);
    expect(cuts).toEqual([
      { path: '$', unit: 'items', kept: 2, total: 3 },
      { path: '$[1]', unit: 'keys', kept: 2, total: 3 },
    ]);
    expect(prune({ text: 'x'.repeat(20), after: 1 }, 28).pruned?.value).toEqual({ text: 'x'.repeat(17) });
  });

  it('keeps a document-order prefix of the original', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.nat(400), (value, room) => {
        const { pruned } = prune(value, room);
        if (pruned !== undefined) expect(isPrefixOf(pruned.value, value)).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });

  it('always reports the exact serialized size and stays within the room', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.nat(400), (value, room) => {
        const { pruned } = prune(value, room);
        if (pruned === undefined) return;
        const text = JSON.stringify(pruned.value);
        expect(text.length).toBe(pruned.size);
        expect(pruned.size).toBeLessThanOrEqual(room);
      }),
      { numRuns: 1000 },
    );
  });
});

/** Whether `kept` reads like the start of `original`: equal up to one last, itself shortened, part. */
function isPrefixOf(kept: unknown, original: unknown): boolean {
  if (typeof kept === 'string' && typeof original === 'string') return original.startsWith(kept);
  if (Array.isArray(kept) && Array.isArray(original)) {
    return (
      kept.length <= original.length &&
      kept.every((item, index) =>
        index === kept.length - 1 ? isPrefixOf(item, original[index]) : equal(item, original[index]),
      )
    );
  }
  if (isObject(kept) && isObject(original)) {
    const keys = Object.keys(kept);
    const originalKeys = Object.keys(original);
    return keys.every(
      (key, index) =>
        key === originalKeys[index] &&
        (index === keys.length - 1 ? isPrefixOf(kept[key], original[key]) : equal(kept[key], original[key])),
    );
  }
  return equal(kept, original);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function equal(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
