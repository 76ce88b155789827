import { describe, expect, it } from 'vitest';
import { checkDownstreamHeaders, endToEndHeaders } from './headers.js';

describe('endToEndHeaders', () => {
  it('drops hop-by-hop headers and those the Connection header names', () => {
    expect(
      endToEndHeaders({
        connection: 'keep-alive, X-Hop',
        'keep-alive': 'timeout=5',
        'transfer-encoding': 'chunked',
        'x-hop': 'private',
        'content-type': 'application/json',
        'set-cookie': ['a=1', 'b=2'],
      }),
    ).toEqual({ 'content-type': 'application/json', 'set-cookie': 'a=1, b=2' });
  });
});

describe('checkDownstreamHeaders', () => {
  it('keeps valid headers with lower-case names', () => {
    expect(checkDownstreamHeaders({ 'X-Api-Key': 'k', Authorization: 'Bearer downstream' })).toEqual({
      'x-api-key': 'k',
      authorization: 'Bearer downstream',
    });
  });

  it('names the configuration key at fault', () => {
    expect(() => checkDownstreamHeaders({ 'X-Api-Key': 'a\0b' })).toThrow('Gw:Downstream:Headers:X-Api-Key: must not contain CR, LF or NUL');
  });
});
