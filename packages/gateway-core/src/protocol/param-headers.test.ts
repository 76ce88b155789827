import { describe, expect, it } from 'vitest';
import { checkParamHeaders, paramHeaderMarks } from './param-headers.js';

const SCHEMA = {
  type: 'object',
  properties: {
    region: { type: 'string', 'x-mcp-header': 'Region' },
    limit: { type: 'integer', 'x-mcp-header': 'Limit' },
    target: { type: 'object', properties: { dryRun: { type: 'boolean', 'x-mcp-header': 'Dry-Run' } } },
    ratio: { type: 'number', 'x-mcp-header': 'Ratio' },
    dup: { type: 'string', 'x-mcp-header': 'region' },
    bad: { type: 'string', 'x-mcp-header': 'has space' },
    list: { type: 'array', items: { type: 'string', 'x-mcp-header': 'Item' } },
  },
};

describe('x-mcp-header parameters (MCP 2026-07-28)', () => {
  const { headers: marks, problems } = paramHeaderMarks(SCHEMA);

  it('finds the marks reachable through properties, leaving out those the revision forbids', () => {
    expect(marks).toEqual([
      { path: ['region'], header: 'mcp-param-region', type: 'string' },
      { path: ['limit'], header: 'mcp-param-limit', type: 'integer' },
      { path: ['target', 'dryRun'], header: 'mcp-param-dry-run', type: 'boolean' },
    ]);
  });

  it('gives each mark it leaves out as a problem, from the same pass', () => {
    expect(problems.map(({ path, message }) => [path.join('.'), message])).toEqual([
      ['properties.ratio.x-mcp-header', expect.stringMatching(/^a number parameter/)],
      ['properties.dup.x-mcp-header', '"region" is also the mark of properties.region (marks are case-insensitive)'],
      ['properties.bad.x-mcp-header', expect.stringMatching(/^"has space" is not an HTTP token/)],
      ['properties.list.items.x-mcp-header', expect.stringMatching(/properties alone/)],
    ]);
  });

  it('accepts headers that mirror the arguments: plain, Base64 sentinel, integers compared as numbers', () => {
    const args = { region: 'Hello, 世界', limit: 42, target: { dryRun: true } };
    const headers = {
      'mcp-param-region': `=?base64?${Buffer.from('Hello, 世界').toString('base64')}?=`,
      'mcp-param-limit': '42.0',
      'mcp-param-dry-run': 'true',
    };
    expect(() => checkParamHeaders(marks, args, headers)).not.toThrow();
    expect(() => checkParamHeaders(marks, { limit: null }, {})).not.toThrow();
  });

  it.each([
    ['a header missing for a value present', { region: 'us-west1' }, {}, /Mcp-Param-region header is required/],
    [
      'a header disagreeing with the body',
      { region: 'us-west1' },
      { 'mcp-param-region': 'eu-west1' },
      /does not match/,
    ],
    ['a header for a value absent', {}, { 'mcp-param-limit': '3' }, /is set but limit is not in the arguments/],
    ['a boolean spelt otherwise', { target: { dryRun: false } }, { 'mcp-param-dry-run': 'False' }, /does not match/],
    ['a header with a newline', { region: 'a' }, { 'mcp-param-region': 'a\nb' }, /characters a header value may not/],
  ])('%s: HeaderMismatch -32020', (_label, args, headers, message) => {
    expect(() => checkParamHeaders(marks, args, headers)).toThrow(
      expect.objectContaining({ code: 'header-mismatch', message: expect.stringMatching(message) }),
    );
  });
});
