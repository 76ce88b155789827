import { describe, expect, it } from 'vitest';
import { assembleInputs, type InputCandidate } from './assemble-inputs.js';

const text = (description: string | null = null) => ({ type: 'string', description });

describe('assembleInputs', () => {
  it('maps each input to its source and schema', () => {
    const candidates: InputCandidate[] = [
      { name: 'id', source: 'route', property: { type: 'integer', description: 'Order id' }, required: true },
      { name: 'verbose', source: 'query', property: { type: 'boolean', description: null }, required: false },
      { name: 'note', source: 'body', property: text(), required: true },
    ];
    expect(assembleInputs(candidates)).toEqual({
      parameterSources: { id: 'route', verbose: 'query', note: 'body' },
      inputSchema: {
        type: 'object',
        properties: {
          id: { type: 'integer', description: 'Order id' },
          verbose: { type: 'boolean', description: null },
          note: text(),
        },
        required: ['id', 'note'],
      },
    });
  });

  it('on a shared name prefers route, then query, then body, whatever the order given', () => {
    const body: InputCandidate = { name: 'id', source: 'body', property: text('from body'), required: false };
    const query: InputCandidate = { name: 'id', source: 'query', property: text('from query'), required: false };
    const route: InputCandidate = { name: 'id', source: 'route', property: text('from route'), required: false };
    for (const order of [
      [body, query, route],
      [route, body, query],
      [query, route, body],
    ]) {
      const { parameterSources, inputSchema } = assembleInputs(order);
      expect(parameterSources).toEqual({ id: 'route' });
      expect(inputSchema.properties.id?.description).toBe('from route');
    }
    expect(assembleInputs([body, query]).parameterSources).toEqual({ id: 'query' });
  });

  it('always requires route inputs', () => {
    const { inputSchema } = assembleInputs([{ name: 'id', source: 'route', property: text(), required: false }]);
    expect(inputSchema.required).toEqual(['id']);
  });

  it('gives an empty object schema for no inputs', () => {
    expect(assembleInputs([])).toEqual({
      parameterSources: {},
      inputSchema: { type: 'object', properties: {}, required: [] },
    });
  });
});
