import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { rememberedSha256Hex, sha256Hex } from './sha256.js';

describe('sha256Hex', () => {
  it('is plain SHA-256 without a key', () => {
    expect(sha256Hex('hello')).toBe(createHash('sha256').update('hello').digest('hex'));
  });

  it('is HMAC-SHA-256 with a Buffer key, the same on every call with that key', () => {
    const key = Buffer.from('0123456789abcdef0123456789abcdef');
    const expected = createHmac('sha256', key).update('hello').digest('hex');
    expect(sha256Hex('hello', key)).toBe(expected);
    expect(sha256Hex('hello', key)).toBe(expected);
  });

  it('is HMAC-SHA-256 with a string key, and keys are told apart', () => {
    expect(sha256Hex('hello', 'key-a')).toBe(createHmac('sha256', 'key-a').update('hello').digest('hex'));
    expect(sha256Hex('hello', 'key-b')).not.toBe(sha256Hex('hello', 'key-a'));
  });

  it('keeps a Buffer key by identity: a different buffer with other bytes is another key', () => {
    const a = Buffer.from('key-one-key-one-key-one');
    const b = Buffer.from('key-two-key-two-key-two');
    expect(sha256Hex('x', a)).not.toBe(sha256Hex('x', b));
    expect(sha256Hex('x', b)).toBe(createHmac('sha256', b).update('x').digest('hex'));
  });
});

describe('rememberedSha256Hex', () => {
  it('gives the digest sha256Hex gives, for texts seen before or not, short or long, past its bound', () => {
    const key = Buffer.from('remembered-key-remembered-key-12');
    const texts = Array.from({ length: 3000 }, (_, i) => `{"agent":"agt_${i % 1500}","args":{"id":${i % 1500}}}`);
    texts.push('x'.repeat(300), 'x'.repeat(300), '');
    for (const text of texts) {
      expect(rememberedSha256Hex(text, key)).toBe(createHmac('sha256', key).update(text).digest('hex'));
      expect(rememberedSha256Hex(text, key)).toBe(sha256Hex(text, key));
    }
    expect(rememberedSha256Hex('plain')).toBe(sha256Hex('plain'));
  });

  it('keeps digests apart by key', () => {
    const a = Buffer.from('key-one-key-one-key-one');
    const b = Buffer.from('key-two-key-two-key-two');
    expect(rememberedSha256Hex('same text', a)).toBe(createHmac('sha256', a).update('same text').digest('hex'));
    expect(rememberedSha256Hex('same text', b)).toBe(createHmac('sha256', b).update('same text').digest('hex'));
    expect(rememberedSha256Hex('same text', 'string-key')).toBe(
      createHmac('sha256', 'string-key').update('same text').digest('hex'),
    );
  });
});
