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
    const rules: ScanRule[] = [
      { kind: 'id', regex: /ID-(\d+)/g, replace: (match) => `ID-${'*'.repeat(match[1]?.length ?? 0)}` },
    ];
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
  ])(
    'scans a megabyte of %s in linear time',
    (_what, text) => {
      // Judged by growth, not by a wall-clock bound that a loaded machine breaks: four times the text takes
      // about four times as long when the scan is linear, sixteen times when it is quadratic. The fastest
      // of two runs of each size keeps a burst of other work out of the ratio; 2 ms absorbs timer noise.
      const quarter = text.slice(0, text.length >> 2);
      const quarterMs = fastestOf(2, () => scan(quarter));
      const wholeMs = fastestOf(2, () => scan(text));
      expect(wholeMs).toBeLessThan(8 * quarterMs + 2);
    },
    60_000,
  );
});

/**
 * The detectors' pre-checks (`needs`, `needsAny`, `minDigits`, `minLength`,
 * `mayMatch`) only save work: with every one of them removed, the patterns
 * find exactly the same on any text. Random texts built from pieces of what
 * the detectors look for (and near misses), joined by what separates them,
 * folded characters and encodings included.
 */
describe('pre-checks', () => {
  const PIECES = [
    'alice@example.com',
    'x@y',
    'a@b',
    '4111 1111 1111 1111',
    '4111111111111111',
    '4111-1111',
    '5555555555554444',
    '2001:db8::1',
    '::1',
    '::',
    'fe80::1%eth0',
    '1:2:3:4:5:6:7:8',
    '1:2:3:4:5:6:1.2.3.4',
    '10:30:45',
    '::ffff:10.0.0.1',
    '192.168.1.10',
    '10.0.0',
    '+44 20 7946 0958',
    '+1 (555) 123-4567',
    '(555) 123-4567',
    '555-123-4567',
    '020 7946 0958',
    '06 12 34 56 78',
    '123-45-6789',
    'SSN',
    'ssn',
    'social security no',
    '123456789',
    '123 45 6789',
    'DE89 3704 0044 0532 0130 00',
    'DE89370400440532013000',
    'de89-3704-0044-0532-0130-00',
    'GB82WEST12345698765432',
    'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig',
    'eyJ',
    'Bearer',
    'bearer abc123def456',
    'sk-abcdefghijklmnopqrstuvwx',
    'xoxb-1234567890',
    'AKIAABCDEFGHIJKLMNOP',
    'ghp_',
    `SG.${'a1_-'.repeat(5)}xy.${'B2c'.repeat(14)}d`,
    `AIza${'x9-'.repeat(11)}ab`,
    'glpat-abcdefghij0123456789',
    `npm_${'a1'.repeat(18)}`,
    'rk_live_abcdefgh12345678',
    'password',
    'password=hunter2',
    'api_key: "abcd1234efgh"',
    'token',
    'pin=1234',
    '2025-01-01T10:00:00Z',
    '2024-01-15',
    '1700000000000',
    '12345',
    '0',
    '7',
    '99',
    '+',
    ':',
    '::',
    '=',
    '.',
    '-',
    '@',
    '%40',
    '&#64;',
    '&commat;',
    'YWxpY2VAZXhhbXBsZS5jb20=',
    'NDExMTExMTExMTExMTExMQ==',
    '\u00A0',
    '\u2013',
    '\u200B',
    '\uFF14\uFF11\uFF11\uFF11',
    '\uFF20',
    'é',
    'Ada',
    'widget',
    'in_stock',
  ];
  const SEPARATORS = ['', ' ', ' ', '-', ':', '.', ', ', '\n', '"', '/'];
  const unguarded = createScanner(
    DETECTORS.map(
      ({
        needs: _needs,
        needsAny: _needsAny,
        minDigits: _minDigits,
        minLength: _minLength,
        minRun: _minRun,
        mayMatch: _mayMatch,
        ...rule
      }) => rule,
    ),
  );

  /** A small, seeded generator: the same texts on every run, so a failure can be reproduced. */
  function random(seed: number): () => number {
    let state = seed;
    // mulberry32
    return () => {
      state = (state + 0x6d2b79f5) | 0;
      let t = Math.imul(state ^ (state >>> 15), 1 | state);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }

  it('never change what the detectors find', () => {
    const next = random(19);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)] as T;
    let found = 0;
    for (let n = 0; n < 20_000; n++) {
      let text = '';
      for (let parts = 1 + Math.floor(next() * 4); parts > 0; parts--) {
        let piece = pick(PIECES);
        // A piece cut short: near misses of every shape.
        if (next() < 0.3) piece = piece.slice(0, Math.floor(next() * piece.length));
        text += piece + pick(SEPARATORS);
      }
      const guarded = scan(text);
      expect(guarded, JSON.stringify(text)).toEqual(scan(text, unguarded));
      if (guarded.text !== text) found++;
    }
    // The texts do hold things to find, and things not to.
    expect(found).toBeGreaterThan(5_000);
    expect(found).toBeLessThan(19_000);
  });
});

function fastestOf(runs: number, work: () => unknown): number {
  let fastest = Number.POSITIVE_INFINITY;
  for (let run = 0; run < runs; run += 1) {
    const started = performance.now();
    work();
    fastest = Math.min(fastest, performance.now() - started);
  }
  return fastest;
}
