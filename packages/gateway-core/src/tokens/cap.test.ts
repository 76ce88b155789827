import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { capResponse, type TruncationMarker } from './cap.js';
import { countTokens } from './count.js';

function envelope(text: string): { _truncated: TruncationMarker; data?: unknown } {
  return JSON.parse(text);
}

const customers = Array.from({ length: 500 }, (_, id) => ({ id, name: `Customer ${id}`, email: `c${id}@example.com` }));

describe('capResponse', () => {
  it('returns a response within the cap unchanged, with its token count', () => {
    const value = { ok: true, items: [1, 2, 3] };
    const result = capResponse(value, 2000);
    expect(result).toEqual({
      text: JSON.stringify(value),
      tokens: countTokens(JSON.stringify(value)),
      truncated: false,
    });
  });

  it('returns a response over the cap as valid JSON within the cap, trimming the array from the end', () => {
    const result = capResponse({ customers }, 300);
    expect(result.truncated).toBe(true);
    expect(countTokens(result.text)).toBe(result.tokens);
    expect(result.tokens).toBeLessThanOrEqual(300);
    const { _truncated, data } = envelope(result.text);
    const kept = (data as { customers: unknown[] }).customers;
    expect(kept.length).toBeGreaterThan(5);
    expect(kept.length).toBeLessThan(500);
    // A prefix of the original, in order.
    expect(kept.slice(0, -1)).toEqual(customers.slice(0, kept.length - 1));
    expect(_truncated).toMatchObject({
      reason: 'maxResponseTokens',
      maxTokens: 300,
      originalBytes: Buffer.byteLength(JSON.stringify({ customers })),
    });
    expect(_truncated.cuts[0]).toEqual({ path: '$.customers', unit: 'items', kept: kept.length, total: 500 });
  });

  it('uses the cap well: the kept part is close to the cap, not a token-wasting sliver', () => {
    const result = capResponse(customers, 1000);
    expect(result.tokens).toBeGreaterThan(900);
  });

  it('trims nested arrays', () => {
    const value = { pages: [{ rows: customers.slice(0, 50) }, { rows: customers.slice(50, 100) }] };
    const result = capResponse(value, 200);
    expect(result.tokens).toBeLessThanOrEqual(200);
    const { _truncated, data } = envelope(result.text);
    expect(_truncated.cuts.map((cut) => cut.path)).toEqual(['$.pages', '$.pages[0].rows']);
    expect((data as typeof value).pages).toHaveLength(1);
  });

  it('shortens one huge string and keeps its beginning', () => {
    const huge = 'The quick brown fox jumps over the lazy dog. '.repeat(200_000);
    const result = capResponse(huge, 100);
    expect(result.tokens).toBeLessThanOrEqual(100);
    const { _truncated, data } = envelope(result.text);
    expect(huge.startsWith(data as string)).toBe(true);
    expect((data as string).length).toBeGreaterThan(50);
    expect(_truncated.cuts).toEqual([{ path: '$', unit: 'chars', kept: (data as string).length, total: huge.length }]);
  });

  it('stays valid and within tiny caps: marker only, then bare marker, then null', () => {
    const value = { text: 'z'.repeat(10_000) };
    const withoutData = envelope(capResponse(value, 40).text);
    expect(withoutData._truncated.cuts).toContainEqual({ path: '$', omitted: true });
    expect(withoutData.data).toBeUndefined();
    expect(capResponse(value, 7)).toEqual({ text: '{"_truncated":true}', tokens: 7, truncated: true });
    expect(capResponse(value, 1)).toEqual({ text: 'null', tokens: 1, truncated: true });
  });

  it('refuses a cap that no JSON text can meet', () => {
    expect(() => capResponse({}, 0)).toThrow(RangeError);
  });

  it('is deterministic', () => {
    expect(capResponse({ customers }, 250)).toEqual(capResponse({ customers }, 250));
  });

  it('always yields valid JSON within the cap', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), fc.integer({ min: 1, max: 60 }), (value, cap) => {
        const result = capResponse(value, cap);
        expect(() => JSON.parse(result.text)).not.toThrow();
        expect(countTokens(result.text)).toBe(result.tokens);
        expect(result.tokens).toBeLessThanOrEqual(cap);
      }),
      { numRuns: 300 },
    );
  });

  it("lists a large object's keys once for the pruning, not once per budget tried", () => {
    const wide: Record<string, string> = {};
    for (let i = 0; i < 5_000; i++) wide[`key_${i}`] = `value ${i}`;
    let listings = 0;
    const counted = new Proxy(wide, {
      ownKeys(target) {
        listings++;
        return Reflect.ownKeys(target);
      },
    });
    const result = capResponse(counted, 200);
    expect(result.truncated).toBe(true);
    // Once to serialize the whole answer, once for the pruner, however many budgets the search tries.
    expect(listings).toBe(2);
  });
});
