import { describe, expect, it } from 'vitest';
import { paramHeaderProblem } from './param-headers.js';

describe('paramHeaderProblem (MCP 2026-07-28 x-mcp-header rule)', () => {
  it.each([
    ['string', 'Region'],
    ['integer', 'Limit'],
    ['boolean', 'Dry-Run'],
    ['string', "!#$%&'*+-.^_`|~09az"],
  ])('allows a %s input marked %s', (type, mark) => {
    expect(paramHeaderProblem(mark, type, 'region', new Map())).toBeNull();
  });

  it.each([
    ['an empty name', '', 'string', 'must be a non-empty string'],
    ['a name that is not a string', 7, 'string', 'must be a non-empty string'],
    ['a space', 'My Region', 'string', '"My Region" is not an HTTP token'],
    ['a colon', 'Region:1', 'string', 'is not an HTTP token'],
    ['CR LF', 'Region\r\nX-Evil', 'string', 'is not an HTTP token'],
    ['a non-ASCII letter', 'Régión', 'string', 'is not an HTTP token'],
    ['a number', 'Ratio', 'number', 'a number parameter cannot be mirrored into a header'],
    ['a nullable string', 'Note', ['string', 'null'], 'not ["string","null"]'],
    [
      'an array',
      'Tags',
      'array',
      'only a string, integer or boolean parameter can be mirrored into a header, not "array"',
    ],
    ['no type', 'Any', undefined, 'not null'],
  ])('refuses %s', (_label, mark, type, problem) => {
    expect(paramHeaderProblem(mark, type, 'region', new Map())).toContain(problem);
  });

  it('says what would do instead: the characters a header name takes, an integer for a number', () => {
    expect(paramHeaderProblem('My Region', 'string', 'region', new Map())).toContain(
      "letters, digits and !#$%&'*+-.^_`|~ only",
    );
    expect(paramHeaderProblem('Ratio', 'number', 'ratio', new Map())).toMatch(/declare it as an integer$/);
  });

  it('refuses a mark another input has, in any case, naming where it was first', () => {
    const taken = new Map<string, string>();
    expect(paramHeaderProblem('Region', 'string', 'properties.region', taken)).toBeNull();
    expect(paramHeaderProblem('REGION', 'string', 'properties.zone', taken)).toBe(
      '"REGION" is also the mark of properties.region (marks are case-insensitive)',
    );
  });

  it('takes a well-formed mark even when its type is refused, and never a malformed one', () => {
    const taken = new Map<string, string>();
    expect(paramHeaderProblem('Ratio', 'number', 'ratio', taken)).toMatch(/number parameter/);
    expect(paramHeaderProblem('ratio', 'string', 'share', taken)).toMatch(/also the mark of ratio/);
    expect(paramHeaderProblem('My Region', 'string', 'region', taken)).toMatch(/HTTP token/);
    expect([...taken.keys()]).toEqual(['ratio']);
  });
});
