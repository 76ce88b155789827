import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DownstreamError, InvalidInputError, InvalidRequestError, ParseError } from '../errors.js';
import {
  classifyMessage,
  jsonRpcErrorFrom,
  jsonRpcResult,
  MAX_MESSAGE_DEPTH,
  parseJsonRpcBody,
  type IncomingMessage,
} from './jsonrpc.js';

function refusal(message: IncomingMessage) {
  if (message.kind !== 'invalid') throw new Error(`expected invalid, got ${message.kind}`);
  return {
    id: message.id,
    code: message.error.jsonRpcCode,
    status: message.error.httpStatus,
    text: message.error.message,
  };
}

describe('parseJsonRpcBody', () => {
  it('reads a request with a string or integer id', () => {
    expect(parseJsonRpcBody('{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}')).toEqual({
      kind: 'request',
      message: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
    });
    expect(parseJsonRpcBody('{"jsonrpc":"2.0","id":"a-1","method":"ping"}')).toEqual({
      kind: 'request',
      message: { jsonrpc: '2.0', id: 'a-1', method: 'ping' },
    });
  });

  it('reads a message without id as a notification', () => {
    expect(parseJsonRpcBody('{"jsonrpc":"2.0","method":"notifications/initialized"}')).toEqual({
      kind: 'notification',
      message: { jsonrpc: '2.0', method: 'notifications/initialized' },
    });
  });

  it('keeps only the envelope members, in the schema order, with params only when sent', () => {
    const request = parseJsonRpcBody('{"extra":1,"params":{"a":[1]},"method":"m","id":-7,"jsonrpc":"2.0"}');
    expect(request).toEqual({ kind: 'request', message: { jsonrpc: '2.0', id: -7, method: 'm', params: { a: [1] } } });
    expect(Object.keys((request as { message: object }).message)).toEqual(['jsonrpc', 'id', 'method', 'params']);
    const notification = parseJsonRpcBody('{"method":"n","jsonrpc":"2.0","x":{}}');
    expect(Object.keys((notification as { message: object }).message)).toEqual(['jsonrpc', 'method']);
    expect(refusal(parseJsonRpcBody('{"jsonrpc":"2.0","id":9007199254740992,"method":"m"}')).id).toBeNull();
    expect(refusal(parseJsonRpcBody('{"jsonrpc":"2.0","id":"q","method":"m","params":[1]}'))).toMatchObject({
      id: 'q',
      text: 'Invalid Request: params must be an object',
    });
  });

  it('reads result and error objects as responses', () => {
    expect(parseJsonRpcBody('{"jsonrpc":"2.0","id":3,"result":{}}').kind).toBe('response');
    expect(parseJsonRpcBody('{"jsonrpc":"2.0","id":null,"error":{"code":-1,"message":"x"}}').kind).toBe('response');
  });

  it('answers a body that is not JSON with -32700 and HTTP 400', () => {
    const result = parseJsonRpcBody('{"jsonrpc":"2.0",');
    expect(refusal(result)).toMatchObject({ id: null, code: -32700, status: 400 });
    expect(result.kind === 'invalid' && result.error).toBeInstanceOf(ParseError);
  });

  it.each([
    ['a batch', '[{"jsonrpc":"2.0","id":1,"method":"ping"}]', null, /batches are not supported/],
    ['a scalar', '42', null, /must be an object/],
    ['null', 'null', null, /must be an object/],
    ['a missing jsonrpc', '{"id":1,"method":"ping"}', 1, /jsonrpc must be "2.0"/],
    ['jsonrpc 1.0', '{"jsonrpc":"1.0","id":1,"method":"ping"}', 1, /jsonrpc must be "2.0"/],
    ['a null request id', '{"jsonrpc":"2.0","id":null,"method":"ping"}', null, /null is not a request id/],
    ['a boolean id', '{"jsonrpc":"2.0","id":true,"method":"ping"}', null, /id must be a string or an integer/],
    ['a fractional id', '{"jsonrpc":"2.0","id":1.5,"method":"ping"}', null, /id must be a string or an integer/],
    ['an id beyond 2^53', '{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}', null, /id must be/],
    ['an object id', '{"jsonrpc":"2.0","id":{},"method":"ping"}', null, /id must be/],
    ['scalar params', '{"jsonrpc":"2.0","id":7,"method":"ping","params":3}', 7, /params must be an object/],
    ['array params', '{"jsonrpc":"2.0","id":7,"method":"ping","params":[1]}', 7, /params must be an object/],
    ['null params', '{"jsonrpc":"2.0","id":7,"method":"ping","params":null}', 7, /params must be an object/],
    ['a numeric method', '{"jsonrpc":"2.0","id":7,"method":5}', 7, /method must be a string/],
    ['neither method nor result', '{"jsonrpc":"2.0","id":7}', 7, /needs a method/],
    ['result and error', '{"jsonrpc":"2.0","id":7,"result":1,"error":{"code":1,"message":"m"}}', 7, /not both/],
  ])('refuses %s with -32600, echoing the id only when it is valid', (_name, body, id, text) => {
    const result = parseJsonRpcBody(body);
    expect(refusal(result)).toMatchObject({ id, code: -32600, status: 400 });
    expect(refusal(result).text).toMatch(text);
    expect(result.kind === 'invalid' && result.error).toBeInstanceOf(InvalidRequestError);
  });

  it(`accepts ${MAX_MESSAGE_DEPTH} levels of nesting and refuses one more (-32600, id echoed), however deep`, () => {
    // The message is level 1, params 2, arguments 3 (the first of the repeated objects).
    const message = (levels: number) =>
      `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"t","arguments":${'{"a":'.repeat(levels - 2)}1${'}'.repeat(levels - 2)}}}`;
    expect(parseJsonRpcBody(message(MAX_MESSAGE_DEPTH)).kind).toBe('request');
    expect(refusal(parseJsonRpcBody(message(MAX_MESSAGE_DEPTH + 1)))).toMatchObject({
      id: 4,
      code: -32600,
      text: /nests deeper than 64/,
    });
    expect(refusal(parseJsonRpcBody(message(200_000)))).toMatchObject({ id: 4, code: -32600 });
    const arrays = `{"jsonrpc":"2.0","method":"n","params":{"a":${'['.repeat(100)}${']'.repeat(100)}}}`;
    expect(refusal(parseJsonRpcBody(arrays))).toMatchObject({ id: null, code: -32600 });
  });

  it('judges nesting the same from the body text as from the parsed value, brackets in strings and side by side included', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), (value) => {
        const text = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'm', params: { v: value } });
        expect(parseJsonRpcBody(text)).toEqual(classifyMessage(JSON.parse(text)));
      }),
      { numRuns: 300 },
    );
    const wide = `{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":[${'{},'.repeat(100)}{}],"s":"${'['.repeat(100)}"}}`;
    expect(parseJsonRpcBody(wide).kind).toBe('request');
  });

  it('never throws and always classifies, whatever JSON arrives', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const kinds = ['request', 'notification', 'response', 'invalid'];
        expect(kinds).toContain(classifyMessage(value).kind);
      }),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(fc.string(), (body) => {
        expect(() => parseJsonRpcBody(body)).not.toThrow();
      }),
      { numRuns: 500 },
    );
  });
});

describe('response builders', () => {
  it('builds a result', () => {
    expect(jsonRpcResult(1, { ok: true })).toEqual({ jsonrpc: '2.0', id: 1, result: { ok: true } });
  });

  it('maps a typed error to its code and message, with its details as data', () => {
    expect(
      jsonRpcErrorFrom(2, new InvalidInputError('Invalid arguments', [{ path: 'id', message: 'must be integer' }])),
    ).toEqual({
      jsonrpc: '2.0',
      id: 2,
      error: {
        code: -32602,
        message: 'Invalid arguments',
        data: { fields: [{ path: 'id', message: 'must be integer' }] },
      },
    });
    const downstream = Object.assign(new DownstreamError('Downstream answered 500'), {
      data: { downstreamStatus: 500 },
    });
    expect(jsonRpcErrorFrom(3, downstream).error).toEqual({
      code: -32002,
      message: 'Downstream answered 500',
      data: { downstreamStatus: 500 },
    });
  });

  it('hides the message of an unexpected error behind -32603', () => {
    const failure = jsonRpcErrorFrom(null, Object.assign(new Error('secret connection string'), { data: 'secret' }));
    expect(failure.error.code).toBe(-32603);
    expect(JSON.stringify(failure)).not.toContain('secret');
  });
});
