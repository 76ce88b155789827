import { describe, expect, it } from 'vitest';
import { SSE_KEEP_ALIVE, sseMessage } from './sse.js';

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
});
