import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../errors.js';
import {
  classifyMessage,
  jsonRpcErrorFrom,
  MAX_MESSAGE_DEPTH,
  parseJsonRpcBody,
  type IncomingMessage,
} from './jsonrpc.js';

/**
 * Property-based tests of the JSON-RPC entry: whatever a client sends,
 * parseJsonRpcBody returns one well-formed classification and never throws.
 * FUZZ_SEED reproduces a failing run (fast-check prints the seed and path);
 * FUZZ_RUNS sets how many inputs each property tries.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 500);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
const options = { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }) };

const isId = (id: unknown) => typeof id === 'string' || Number.isSafeInteger(id);
const isPlainObject = (value: unknown) => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The invariants every classification keeps, whatever the input. */
function expectWellFormed(incoming: IncomingMessage): void {
  switch (incoming.kind) {
    case 'request':
      expect(incoming.message.jsonrpc).toBe('2.0');
      expect(isId(incoming.message.id)).toBe(true);
      expect(typeof incoming.message.method).toBe('string');
      if (incoming.message.params !== undefined) expect(isPlainObject(incoming.message.params)).toBe(true);
      break;
    case 'notification':
      expect(incoming.message.jsonrpc).toBe('2.0');
      expect('id' in incoming.message).toBe(false);
      expect(typeof incoming.message.method).toBe('string');
      if (incoming.message.params !== undefined) expect(isPlainObject(incoming.message.params)).toBe(true);
      break;
    case 'response':
      expect(incoming.message.jsonrpc).toBe('2.0');
      expect('result' in incoming.message !== 'error' in incoming.message).toBe(true);
      break;
    case 'invalid': {
      expect(incoming.id === null || isId(incoming.id)).toBe(true);
      expect(incoming.error).toBeInstanceOf(GatewayError);
      expect(incoming.error.httpStatus).toBe(400);
      expect([-32700, -32600]).toContain(incoming.error.jsonRpcCode);
      // The answer built from it is a JSON-RPC error that survives serialization unchanged.
      const answer = jsonRpcErrorFrom(incoming.id, incoming.error);
      expect(JSON.parse(JSON.stringify(answer))).toEqual({
        jsonrpc: '2.0',
        id: incoming.id,
        error: { code: incoming.error.jsonRpcCode, message: expect.stringMatching(/\S/) },
      });
      break;
    }
    default:
      throw new Error(`unknown kind ${JSON.stringify(incoming)}`);
  }
}

const anyId = fc.oneof(
  fc.integer(),
  fc.string({ maxLength: 12 }),
  fc.constant(null),
  fc.double(),
  fc.boolean(),
  fc.constant(2 ** 60),
  fc.jsonValue({ maxDepth: 2 }),
);
const anyMethod = fc.oneof(
  fc.constantFrom('initialize', 'ping', 'tools/list', 'tools/call', 'notifications/initialized'),
  fc.string(),
  fc.jsonValue({ maxDepth: 1 }),
);

/** Objects that look like JSON-RPC messages, each member present or not, well-typed or not. */
const messageLike = fc.record(
  {
    jsonrpc: fc.oneof(fc.constant('2.0'), fc.constantFrom('1.0', '2', ''), fc.jsonValue({ maxDepth: 1 })),
    id: anyId,
    method: anyMethod,
    params: fc.oneof(fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 3 })), fc.jsonValue({ maxDepth: 3 })),
    result: fc.jsonValue({ maxDepth: 2 }),
    error: fc.oneof(
      fc.record(
        { code: fc.oneof(fc.integer(), fc.double()), message: fc.oneof(fc.string(), fc.integer()) },
        { requiredKeys: [] },
      ),
      fc.jsonValue({ maxDepth: 1 }),
    ),
  },
  { requiredKeys: [] },
);

/** Arrays and objects nested up to 3x the limit, with a message at the top or not. */
const deeplyNested = fc
  .tuple(fc.integer({ min: 1, max: 3 * MAX_MESSAGE_DEPTH }), fc.boolean(), fc.boolean())
  .map(([depth, asMessage, arrays]) => {
    const inner = arrays ? '['.repeat(depth) + ']'.repeat(depth) : '{"a":'.repeat(depth) + '0' + '}'.repeat(depth);
    return {
      depth,
      asMessage,
      text: asMessage ? `{"jsonrpc":"2.0","id":1,"method":"m","params":{"x":${inner}}}` : inner,
    };
  });

describe('parseJsonRpcBody (property-based)', () => {
  it('never throws and classifies any string, well-formed (-32700 exactly when the text is not JSON)', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' })), (body) => {
        const incoming = parseJsonRpcBody(body);
        expectWellFormed(incoming);
        let isJson = true;
        try {
          JSON.parse(body);
        } catch {
          isJson = false;
        }
        expect(incoming.kind === 'invalid' && incoming.error.jsonRpcCode === -32700).toBe(!isJson);
      }),
      options,
    );
  });

  it('classifies any JSON value, well-formed; arrays are always refused as batches', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const incoming = parseJsonRpcBody(JSON.stringify(value));
        expectWellFormed(incoming);
        if (Array.isArray(value))
          expect(incoming).toMatchObject({ kind: 'invalid', id: null, error: { jsonRpcCode: -32600 } });
        expectWellFormed(classifyMessage(value));
      }),
      options,
    );
  });

  it('classifies message-like objects, well-formed; the id echoed in a refusal is the one sent, when valid', () => {
    fc.assert(
      fc.property(messageLike, (value) => {
        const text = JSON.stringify(value);
        // What actually travels (a -0 or 2.0 id arrives as 0 or 2).
        const sent = JSON.parse(text) as Record<string, unknown>;
        const incoming = parseJsonRpcBody(text);
        expectWellFormed(incoming);
        if (incoming.kind === 'invalid' && incoming.id !== null) expect(incoming.id).toBe(sent.id);
        if (incoming.kind === 'request') expect(incoming.message).toMatchObject({ id: sent.id, method: sent.method });
      }),
      options,
    );
  });

  it('reads every valid request back exactly', () => {
    const request = fc.record(
      {
        jsonrpc: fc.constant('2.0' as const),
        id: fc.oneof(fc.maxSafeInteger(), fc.string()),
        method: fc.string(),
        params: fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 4 })),
      },
      { requiredKeys: ['jsonrpc', 'id', 'method'] },
    );
    fc.assert(
      fc.property(request, (message) => {
        // JSON.stringify drops -0 and undefined: compare with what actually travels.
        const sent = JSON.parse(JSON.stringify(message));
        expect(parseJsonRpcBody(JSON.stringify(message))).toEqual({ kind: 'request', message: sent });
      }),
      options,
    );
  });

  it(`refuses nesting beyond ${MAX_MESSAGE_DEPTH} levels and only that, without running out of stack`, () => {
    fc.assert(
      fc.property(deeplyNested, ({ depth, asMessage, text }) => {
        const incoming = parseJsonRpcBody(text);
        expectWellFormed(incoming);
        if (!asMessage) return; // a bare array is a batch, a bare object lacks a method: refused either way
        const levels = depth + 2; // the message, then params
        expect(incoming.kind).toBe(levels > MAX_MESSAGE_DEPTH ? 'invalid' : 'request');
      }),
      options,
    );
  });
});
