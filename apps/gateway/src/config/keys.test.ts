import { describe, expect, it } from 'vitest';
import { CONFIG_KEYS, PAGE_SECTIONS } from './keys.js';
import { CACHE_TOOL_KEYS } from './cache-section.js';
import { RATE_LIMIT_KEYS } from './rate-limit-section.js';
import { MODE_KEYS } from './server-section.js';

/** Every declared group: read one key at a time, or (the rate-limit pair, per-tool cache settings) by its section parser. */
const readGroups = [MODE_KEYS, ...Object.values(CONFIG_KEYS), RATE_LIMIT_KEYS, CACHE_TOOL_KEYS];
const names = readGroups.flatMap((keys) => Object.values(keys).map((key) => key.name));

describe('the configuration key declarations', () => {
  it('put every group the reader reads on the reference page exactly once', () => {
    const onPage = PAGE_SECTIONS.flatMap(({ groups }) => groups);
    expect(onPage).toHaveLength(readGroups.length);
    expect(new Set(onPage)).toEqual(new Set(readGroups));
  });

  it('declare each key once, named as contract 5 writes keys', () => {
    expect(new Set(names.map((name) => name.toLowerCase())).size).toBe(names.length);
    for (const name of names)
      expect(name).toMatch(/^(Gw(:([A-Z][A-Za-z]+|<tool>))+|ConnectionStrings:Store|PORT|HOST|NODE_ENV)$/);
  });

  it('give each key a one-line description and a type', () => {
    for (const keys of readGroups) {
      for (const key of Object.values(keys)) {
        expect(key.description, key.name).toMatch(/^[^\n]{8,}$/);
        const field = typeof key.field === 'function' ? key.field(false) : key.field;
        expect(field.type, key.name).not.toBe('');
      }
    }
  });
});
