import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../util/canonical-json.js';
import { argsDigest } from './digest.js';

describe('canonicalJson', () => {
  it('sorts keys at every depth and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: 'x' } })).toBe(
      '{"a":{"c":"x","d":[3,{"y":2,"z":1}]},"b":1}',
    );
  });

  it('serializes like JSON otherwise', () => {
    expect(canonicalJson({ a: undefined, b: Number.NaN, c: null })).toBe('{"b":null,"c":null}');
    expect(canonicalJson('text')).toBe('"text"');
    expect(canonicalJson(undefined)).toBe('null');
  });
});

describe('argsDigest', () => {
  it('is the SHA-256 hex of the canonical JSON, whatever the key order', () => {
    const expected = createHash('sha256').update('{"limit":5,"query":"red shoes"}').digest('hex');
    expect(argsDigest({ query: 'red shoes', limit: 5 })).toBe(expected);
    expect(argsDigest({ limit: 5, query: 'red shoes' })).toBe(expected);
    expect(argsDigest({ limit: 6, query: 'red shoes' })).not.toBe(expected);
  });

  it('is an HMAC under a key, so low-entropy values cannot be guessed from it', () => {
    const plain = argsDigest({ ssn: '123-45-6789' });
    const keyed = argsDigest({ ssn: '123-45-6789' }, 'audit-key');
    expect(keyed).toMatch(/^[0-9a-f]{64}$/);
    expect(keyed).not.toBe(plain);
    expect(argsDigest({ ssn: '123-45-6789' }, 'other-key')).not.toBe(keyed);
  });

  it('is the same digest when the arguments are likely to repeat (remembered), keyed or not', () => {
    for (const args of [{ ssn: '123-45-6789' }, { b: 1, a: [2] }, { long: 'x'.repeat(400) }]) {
      for (const key of [undefined, 'audit-key']) {
        expect(argsDigest(args, key, true)).toBe(argsDigest(args, key));
        expect(argsDigest(args, key, true)).toBe(argsDigest(args, key));
      }
    }
  });
});
