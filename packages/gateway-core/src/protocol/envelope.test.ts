import { describe, expect, it } from 'vitest';
import { completeResult, META_SERVER_INFO } from './envelope.js';
import { sseMessage } from './sse.js';
import { buildToolCallResult, buildToolCallResultFromJson } from './tool-result.js';
import { jsonRpcResult } from './jsonrpc.js';

const serverInfo = { name: 'tollgate', version: '1.2.3' };

describe('completeResult (a result of the stateless era)', () => {
  it('reads as the spread it replaces: same keys in the same order, resultType and the server in _meta', () => {
    const result = { tools: [{ name: 'a' }], _meta: { keep: 1 } };
    const complete = completeResult(result, serverInfo);
    expect(Object.keys(complete)).toEqual(['tools', '_meta', 'resultType']);
    expect(complete).toEqual({
      tools: [{ name: 'a' }],
      _meta: { keep: 1, [META_SERVER_INFO]: serverInfo },
      resultType: 'complete',
    });
    expect(result).toEqual({ tools: [{ name: 'a' }], _meta: { keep: 1 } });
    expect(complete.tools).toBe(result.tools);
    expect(completeResult({ resultType: 'input_required' }, serverInfo).resultType).toBe('input_required');
  });

  it("keeps a tools/call answer's JSON text, so the reply is written around it, not serialized again", () => {
    // Spacing JSON.stringify would not write shows which text the reply used.
    const result = buildToolCallResult('{"a": 1}', '2025-11-25', { value: { a: 1 } });
    const frame = sseMessage(jsonRpcResult(1, completeResult(result, serverInfo)));
    expect(frame).toContain('"structuredContent":{"a": 1},"resultType":"complete","_meta":{');
  });

  it("leaves a cached answer's structuredContent unparsed until something reads it", () => {
    const result = buildToolCallResultFromJson('{"a": 1}', '2025-11-25');
    const complete = completeResult(result, serverInfo);
    expect(Object.getOwnPropertyDescriptor(complete, 'structuredContent')?.get).toBeTypeOf('function');
    expect(sseMessage(jsonRpcResult(1, complete))).toContain('"structuredContent":{"a": 1},"resultType"');
    expect(complete.structuredContent).toEqual({ a: 1 });
  });
});
