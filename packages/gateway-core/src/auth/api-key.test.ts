import { describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { apiKeyWeakness } from './api-key.js';

// Issue 25, finding 9: a length floor alone let 32 spaces or one character 32 times through.
describe('apiKeyWeakness', () => {
  it.each([
    ['blank', ' '.repeat(32), 'is blank'],
    ['tabs and newlines', '\t\n'.repeat(16), 'is blank'],
    ['one character repeated', 'a'.repeat(32), 'is one piece repeated'],
    ['a word repeated', 'password'.repeat(4), 'is one piece repeated'],
    ['all the same but one', `${'a'.repeat(31)}b`, 'has too few different characters'],
    ['two characters', `${'ab'.repeat(15)}ba`, 'has too few different characters'],
  ])('refuses a key that is %s', (_, key, problem) => {
    expect(apiKeyWeakness(key)).toBe(problem);
  });

  it('accepts random keys of the lengths the docs suggest, and passphrases', () => {
    for (let i = 0; i < 2000; i++) expect(apiKeyWeakness(randomBytes(16).toString('hex'))).toBeNull();
    expect(apiKeyWeakness(randomBytes(32).toString('base64url'))).toBeNull();
    expect(apiKeyWeakness('correct-horse-battery-staple-xyz1')).toBeNull();
  });
});
