import { describe, expect, it } from 'vitest';
import { CONFIG_KEYS, OPEN_SECTIONS, PAGE_SECTIONS } from './keys.js';
import { CACHE_TOOL_KEYS } from './cache-section.js';
import { DOWNSTREAM_HEADERS_KEYS } from './downstream-section.js';
import { DOWNSTREAMS_KEYS, KNOWN_SETTINGS } from './downstreams-keys.js';
import { OAUTH_KEYS } from './oauth-section.js';
import { PRIVACY_KEYS } from './privacy-section.js';
import { RATE_LIMIT_KEYS } from './rate-limit-section.js';
import { LOG_KEYS, MODE_KEYS } from './server-section.js';

/** The groups read whole by their sections' parsers (OPEN_SECTIONS), each key with a part users name or going together. */
const sectionGroups = [
  DOWNSTREAMS_KEYS,
  DOWNSTREAM_HEADERS_KEYS,
  CACHE_TOOL_KEYS,
  RATE_LIMIT_KEYS,
  PRIVACY_KEYS,
  OAUTH_KEYS,
];
/** Every declared group: read one key at a time, by the logger (LOG_LEVEL), or by its section parser. */
const readGroups = [MODE_KEYS, LOG_KEYS, ...Object.values(CONFIG_KEYS), ...sectionGroups];
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
      expect(name).toMatch(
        /^(Gw(:([A-Z][A-Za-z]+|<[A-Za-z]+>))+|ConnectionStrings:Store|PORT|HOST|NODE_ENV|LOG_LEVEL)$/,
      );
  });

  it("read each section parser's keys under the section it is handed", () => {
    expect(OPEN_SECTIONS).toEqual({
      downstreams: 'Gw:Downstreams',
      downstreamHeaders: 'Gw:Downstream:Headers',
      cacheTools: 'Gw:Cache:Tools',
      rateLimit: 'Gw:RateLimit',
      privacy: 'Gw:Privacy',
      oauth: 'Gw:OAuth',
    });
    for (const [section, keys] of Object.values(OPEN_SECTIONS).map((name, i) => [name, sectionGroups[i]] as const))
      for (const key of Object.values(keys ?? {})) expect(key.name.startsWith(`${section}:`), key.name).toBe(true);
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

  it("name every named downstream's setting in the words an unknown one is answered with", () => {
    for (const { name } of Object.values(DOWNSTREAMS_KEYS)) {
      const [first = ''] = name.slice('Gw:Downstreams:<name>:'.length).split(':');
      expect(KNOWN_SETTINGS, name).toContain(first);
    }
  });
});
