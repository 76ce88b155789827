import { describe, expect, it } from 'vitest';
import { toToolOptions } from './analyzer/tool-options.js';
import { toCacheSettings } from './cache-settings.js';

describe('toCacheSettings', () => {
  it('applies the defaults and keeps synonym groups', () => {
    expect(toCacheSettings(undefined)).toEqual({ settings: null, problem: null });
    expect(toCacheSettings(null)).toEqual({ settings: null, problem: null });
    expect(toCacheSettings({})).toEqual({ settings: { semantic: false, significantTerms: [] }, problem: null });
    expect(
      toCacheSettings({ semantic: true, significantTerms: [' hardware ', ['monitor', 'screen']] }).settings,
    ).toEqual({
      semantic: true,
      significantTerms: ['hardware', ['monitor', 'screen']],
    });
  });

  it('says what is wrong', () => {
    expect(toCacheSettings(true).problem).toMatch(/must be an object/);
    expect(toCacheSettings({ semantic: 1 }).problem).toMatch(/semantic must be true or false/);
    expect(toCacheSettings({ significantTerms: 'hardware' }).problem).toMatch(/significantTerms/);
    expect(toCacheSettings({ significantTerms: [[]] }).problem).toMatch(/significantTerms/);
    expect(toCacheSettings({ significantTerms: ['x'.repeat(101)] }).problem).toMatch(/significantTerms/);
    expect(toCacheSettings({ semantic: true, ttl: 5 }).problem).toMatch(/unknown field ttl/);
  });
});

describe('@AgentTool cache option (annotation form)', () => {
  it('goes into the manifest only when set', () => {
    expect(toToolOptions({ description: 'd' }).options).not.toHaveProperty('cache');
    expect(toToolOptions({ description: 'd', cache: { semantic: true } }).options.cache).toEqual({
      semantic: true,
      significantTerms: [],
    });
    expect(toToolOptions({ description: 'd', cache: { semantic: 'no' } }).problems.map((p) => p.message)).toEqual([
      'cache.semantic must be true or false',
    ]);
  });
});
