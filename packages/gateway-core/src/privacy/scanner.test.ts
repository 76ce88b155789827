import { describe, expect, it } from 'vitest';
import { createScanner, type RedactionCounts, type ScanRule } from './scanner.js';
import { DETECTORS } from './detectors.js';

const detectors = createScanner(DETECTORS);
const scan = (text: string, scanner = detectors) => {
  const counts: RedactionCounts = {};
  return { text: scanner(text, counts), counts };
};

const filler = (length: number) => 'lorem ipsum '.repeat(Math.ceil(length / 12)).slice(0, length);

describe('createScanner', () => {
  it('returns the very same string when nothing matches', () => {
    const text = filler(20_000);
    expect(scan(text).text).toBe(text);
  });

  it('finds matches anywhere in a long string, a long token included', () => {
    const jwt = `eyJhbGciOiJIUzI1NiJ9.eyJ${'a'.repeat(20_000)}.signature_TAIL`;
    const text = `${filler(50_000)} alice@example.com ${filler(50_000)} ${jwt} ${filler(50_000)}`;
    const { text: filtered, counts } = scan(text);
    expect(filtered).not.toContain('alice');
    expect(filtered).not.toContain('signature_TAIL');
    expect(filtered).not.toMatch(/a{50}/);
    expect(counts).toEqual({ email: 1, jwt: 1 });
  });

  it('merges overlapping matches into one redaction named after the earlier one', () => {
    const rules: ScanRule[] = [
      { kind: 'first', regex: /abc/g },
      { kind: 'second', regex: /bcd/g },
    ];
    expect(scan('xabcdx', createScanner(rules))).toEqual({ text: 'x[REDACTED:first]x', counts: { first: 1 } });
  });

  it('uses a rule replacement only for a match it redacts alone', () => {
    const rules: ScanRule[] = [{ kind: 'id', regex: /ID-(\d+)/g, replace: (match) => `ID-${'*'.repeat(match[1]?.length ?? 0)}` }];
    expect(scan('ID-123 and ID-4567', createScanner(rules))).toEqual({ text: 'ID-*** and ID-****', counts: { id: 2 } });
  });

  // Near misses for every detector, a megabyte each: a pattern that
  // backtracks more than linearly would take minutes here, not milliseconds.
  it.each([
    ['digits', '1'.repeat(1 << 20)],
    ['local parts without a domain', `${'a'.repeat(60)}@`.repeat(1 << 14)],
    ['domains without a top-level domain', 'a@a.1'.repeat(1 << 18)],
    ['an endless international number', `+${'1 '.repeat(1 << 19)}`],
    ['endless national groups', '12-'.repeat(1 << 18)],
    ['colons', 'ab:'.repeat(1 << 18)],
    ['dotted digits', '1.'.repeat(1 << 19)],
    ['IBAN-like groups', 'AB12 CDEF '.repeat(1 << 17)],
    ['JWT prefixes', 'eyJa.eyJa'.repeat(1 << 17)],
    ['bearer words', 'Bearer '.repeat(1 << 17)],
    ['lower-case IBAN-like groups', 'ab12 cdef '.repeat(1 << 17)],
    ['dash-grouped IBAN-like groups', 'de12-cdef-'.repeat(1 << 17)],
    ['SSN words before near-miss numbers', 'SSN 12345678 '.repeat(1 << 16)],
    ['digits between no-break spaces (folded)', '1\u00A0'.repeat(1 << 19)],
    ['digits between zero-width characters (folded)', '1\u200B'.repeat(1 << 19)],
    ['full-width digits (folded)', '\uFF11'.repeat(1 << 20)],
  ])('scans a megabyte of %s in linear time', (_what, text) => {
    const started = performance.now();
    scan(text);
    expect(performance.now() - started).toBeLessThan(3000);
  });
});
