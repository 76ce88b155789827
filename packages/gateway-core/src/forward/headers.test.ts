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

  it('names the option at fault', () => {
    expect(() => checkDownstreamHeaders({ 'X-Api-Key': 'a\0b' })).toThrow(
      'downstream.headers.X-Api-Key: must not contain CR, LF or NUL',
    );
  });

  it('lists every bad header at once', () => {
    expect(() => checkDownstreamHeaders({ 'Bad Name': 'a\nb', Host: 'h', Ok: 'k' })).toThrow(
      expect.objectContaining({
        problems: [
          { path: 'downstream.headers.Bad Name', message: 'not a valid header name' },
          { path: 'downstream.headers.Bad Name', message: 'must not contain CR, LF or NUL' },
          { path: 'downstream.headers.Host', message: 'is set by the HTTP client and cannot be configured' },
        ],
      }),
    );
  });
});
