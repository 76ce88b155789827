import { describe, expect, it } from 'vitest';
import { jsonRpcResult } from './jsonrpc.js';
import { sseMessage } from './sse.js';
import { buildToolCallResult, buildToolCallResultFromJson } from './tool-result.js';

const ANSWERS: unknown[] = [
  JSON.parse('{"a":1,"b":[true,null,"x\\n\\"y\\u2028"],"__proto__":{"c":"é"},"d":{"e":-1.5e-7}}'),
  { nested: { deep: [1, [2, [3]]] }, empty: {}, list: [] },
  {},
  [1, 2, 3],
  [],
  'plain text\nwith a line break',
  '{not an object, a string}',
  42,
  true,
  null,
];

/** Whether structuredContent is still the unparsed accessor. */
const stillUnparsed = (result: object) =>
  Object.getOwnPropertyDescriptor(result, 'structuredContent')?.get !== undefined;

describe('buildToolCallResultFromJson (a cached answer served from its stored text)', () => {
  it.each(['2025-03-26', '2025-06-18', '2025-11-25'] as const)(
    'reads as the result built by parsing the text, protocol %s',
    (version) => {
      for (const value of ANSWERS) {
        const text = JSON.stringify(value);
        const lazy = buildToolCallResultFromJson(text, version);
        const eager = buildToolCallResult(text, version);
        expect(Object.keys(lazy)).toEqual(Object.keys(eager));
        expect(JSON.stringify(lazy)).toBe(JSON.stringify(eager));
        expect(lazy).toEqual(eager);
        expect(lazy.structuredContent).toBe(lazy.structuredContent); // parsed once, then kept
      }
    },
  );

  it('is framed for SSE from the text, without parsing it, as the message JSON.stringify gives', () => {
    for (const value of ANSWERS) {
      const result = buildToolCallResultFromJson(JSON.stringify(value), '2025-06-18');
      const frame = sseMessage(jsonRpcResult(7, result), 'e1');
      expect(stillUnparsed(result)).toBe(true);
      expect(frame).toBe(
        `id: e1\nevent: message\ndata: ${JSON.stringify(jsonRpcResult(7, buildToolCallResult(JSON.stringify(value), '2025-06-18')))}\n\n`,
      );
    }
  });

  it('uses the text itself, so the frame carries the stored bytes', () => {
    // Spacing that JSON.stringify would not write shows which text was used.
    const frame = sseMessage(jsonRpcResult(1, buildToolCallResultFromJson('{"a": 1}', '2025-06-18')));
    expect(frame).toBe(
      'event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\\"a\\": 1}"}],"structuredContent":{"a": 1}}}\n\n',
    );
  });

  it('takes a value assigned to structuredContent like any result', () => {
    const result = buildToolCallResultFromJson('{"a":1}', '2025-06-18');
    result.structuredContent = { b: 2 };
    expect(result.structuredContent).toEqual({ b: 2 });
    expect(Object.keys(result)).toEqual(['content', 'structuredContent']);
  });
});
