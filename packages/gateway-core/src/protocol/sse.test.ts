import { describe, expect, it } from 'vitest';
import { jsonRpcResult } from './jsonrpc.js';
import { SSE_KEEP_ALIVE, sseMessage } from './sse.js';
import { buildToolCallResult } from './tool-result.js';

describe('sseMessage', () => {
  it('frames one message event whose data is the JSON-RPC response', () => {
    const frame = sseMessage({ jsonrpc: '2.0', id: 1, result: { ok: true } });
    expect(frame).toBe('event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{"ok":true}}\n\n');
  });

  it('keeps line breaks inside values from ending the event or injecting another', () => {
    const frame = sseMessage({ jsonrpc: '2.0', id: 1, result: { text: 'a\n\nevent: message\r\ndata: x' } });
    expect(frame.split('\n')).toHaveLength(4);
    expect(frame).not.toContain('\r');
    const data = frame.split('\n')[1]!.slice('data: '.length);
    expect(JSON.parse(data).result.text).toBe('a\n\nevent: message\r\ndata: x');
  });

  it('keeps streams alive with a comment frame', () => {
    expect(SSE_KEEP_ALIVE.startsWith(':')).toBe(true);
    expect(SSE_KEEP_ALIVE.endsWith('\n\n')).toBe(true);
  });

  describe('a tools/call result built from its answer text', () => {
    const frameOf = (message: object) => `event: message\ndata: ${JSON.stringify(message)}\n\n`;
    const answers = [
      JSON.parse('{"a":1,"b":[true,null,"x\\n\\"y\\u2028"],"__proto__":{"c":"é"},"d":{"e":-1.5e-7}}'),
      { nested: { deep: [1, [2, [3]]] }, empty: {}, list: [] },
      [1, 2, 3],
      'plain text\nwith a line break',
      42,
      null,
    ];

    it.each([1, 'request-7'])('is the same text JSON.stringify gives, id %j', (id) => {
      for (const value of answers) {
        const message = jsonRpcResult(id, buildToolCallResult(JSON.stringify(value), '2025-06-18', { value }));
        expect(sseMessage(message, 'e1')).toBe(`id: e1\n${frameOf(message)}`);
      }
    });

    it('reuses the answer text rather than serializing the value again', () => {
      // Spacing that JSON.stringify would not write shows which text was used.
      const message = jsonRpcResult(1, buildToolCallResult('{"a": 1}', '2025-06-18', { value: { a: 1 } }));
      expect(sseMessage(message)).toBe(
        'event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\\"a\\": 1}"}],"structuredContent":{"a": 1}}}\n\n',
      );
    });

    it('serializes the whole message when it has more than the result, or a result in another order', () => {
      const result = buildToolCallResult('{"a": 1}', '2025-06-18', { value: { a: 1 } });
      for (const message of [
        { ...jsonRpcResult(1, result), extra: true },
        jsonRpcResult(1, { structuredContent: result.structuredContent, content: result.content }),
      ]) {
        expect(sseMessage(message as never)).toBe(frameOf(message));
      }
    });

    it('reuses the answer text for a stateless result too, writing what it adds after it as JSON.stringify does', () => {
      const result = buildToolCallResult('{"a": 1}', '2025-11-25', { value: { a: 1 } });
      // What completeResult adds (resultType, _meta); a member with no JSON form is left out, as JSON.stringify does.
      Object.assign(result, { resultType: 'complete', gone: undefined, _meta: { 'x/serverInfo': { n: 'é' } } });
      const message = jsonRpcResult(1, result);
      const frame = sseMessage(message);
      expect(frame).toBe(
        'event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\\"a\\": 1}"}],' +
          '"structuredContent":{"a": 1},"resultType":"complete","_meta":{"x/serverInfo":{"n":"é"}}}}\n\n',
      );
      expect(JSON.parse(frame.split('\n')[1]!.slice('data: '.length))).toEqual(JSON.parse(JSON.stringify(message)));
      for (const value of answers) {
        const canonical = jsonRpcResult(
          7,
          Object.assign(buildToolCallResult(JSON.stringify(value), '2025-11-25', { value }), {
            resultType: 'complete',
            _meta: { m: [1, 'two'] },
          }),
        );
        expect(sseMessage(canonical)).toBe(frameOf(canonical));
      }
    });

    it('serializes a result whose text was parsed back (a cut answer)', () => {
      const message = jsonRpcResult(1, buildToolCallResult('{"a": 1}', '2025-06-18'));
      expect(sseMessage(message)).toBe(frameOf(message));
    });
  });
});
