import { describe, expect, it } from 'vitest';
import { opensAtMost } from './json-opens.js';

describe('opensAtMost', () => {
  it('counts every object and array opened, those in strings too, up to the limit included', () => {
    expect(opensAtMost('{"a":[1,{"b":[]}]}', 4)).toBe(true);
    expect(opensAtMost('{"a":[1,{"b":[]}]}', 3)).toBe(false);
    // A bracket in a string counts: the count can only overstate the depth, never hide it.
    expect(opensAtMost('{"a":"[["}', 1)).toBe(false);
    expect(opensAtMost('plain', 0)).toBe(true);
  });
});
