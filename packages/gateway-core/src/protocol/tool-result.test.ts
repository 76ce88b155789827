import { describe, expect, it } from 'vitest';
import { buildToolCallResult } from './tool-result.js';

describe('buildToolCallResult', () => {
  it('returns the JSON text as one text content item', () => {
    expect(buildToolCallResult('{"id":1}', '2025-03-26')).toEqual({ content: [{ type: 'text', text: '{"id":1}' }] });
  });

  it('adds structuredContent from 2025-06-18 on, wrapping values that are not objects', () => {
    expect(buildToolCallResult('{"id":1}', '2025-06-18').structuredContent).toEqual({ id: 1 });
    expect(buildToolCallResult('[1,2]', '2025-11-25').structuredContent).toEqual({ result: [1, 2] });
    expect(buildToolCallResult('"text"', '2025-11-25').structuredContent).toEqual({ result: 'text' });
  });

  it('uses the value it is given instead of parsing the text again', () => {
    const value = { id: 1, tags: ['a'] };
    const result = buildToolCallResult(JSON.stringify(value), '2025-06-18', { value });
    expect(result.structuredContent).toBe(value);
    expect(buildToolCallResult('[1]', '2025-06-18', { value: [1] }).structuredContent).toEqual({ result: [1] });
  });
});
