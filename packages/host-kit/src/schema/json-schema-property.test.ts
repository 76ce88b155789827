import { describe, expect, it } from 'vitest';
import { isNullable, toInputProperty } from './json-schema-property.js';

describe('toInputProperty', () => {
  it.each([
    [{ type: 'integer', minimum: 0 }, 'integer'],
    [{ type: 'number' }, 'number'],
    [{ type: 'boolean' }, 'boolean'],
    [{ type: 'string', format: 'date-time' }, 'string'],
    [{ type: 'string', enum: ['a', 'b'] }, 'string'],
    [{}, 'string'],
    [{ anyOf: [{ type: 'string' }, { type: 'integer' }] }, 'string'],
    [{ type: 'null' }, ['string', 'null']],
  ])('maps the scalar %j to %j with nothing else', (fragment, type) => {
    expect(toInputProperty(fragment)).toEqual({ type, description: null });
  });

  it('takes the description, else null', () => {
    expect(toInputProperty({ type: 'integer', description: 'Order id' })).toEqual({
      type: 'integer',
      description: 'Order id',
    });
    expect(toInputProperty({ type: 'integer' }).description).toBeNull();
  });

  it('maps a nullable type like its underlying type with null beside it, in both JSON Schema spellings', () => {
    expect(toInputProperty({ type: ['integer', 'null'], description: 'd' })).toEqual({
      type: ['integer', 'null'],
      description: 'd',
    });
    expect(toInputProperty({ anyOf: [{ type: 'boolean', description: 'inner' }, { type: 'null' }] })).toEqual({
      type: ['boolean', 'null'],
      description: 'inner',
    });
    expect(
      toInputProperty({ anyOf: [{ type: 'number', description: 'inner' }, { type: 'null' }], description: 'outer' }),
    ).toEqual({
      type: ['number', 'null'],
      description: 'outer',
    });
  });

  it('keeps the shape of arrays and nested objects', () => {
    const lines = {
      type: 'array',
      items: { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] },
      description: 'Order lines',
    };
    expect(toInputProperty(lines)).toEqual(lines);
    const address = { type: 'object', properties: { zip: { type: 'string' } }, required: [] };
    expect(toInputProperty(address)).toEqual({ ...address, description: null });
    expect(toInputProperty({ anyOf: [{ type: 'array', items: { type: 'string' } }, { type: 'null' }] })).toEqual({
      type: ['array', 'null'],
      items: { type: 'string' },
      description: null,
    });
    expect(toInputProperty({ $schema: 'x', type: 'object', properties: {} })).toEqual({
      type: 'object',
      properties: {},
      description: null,
    });
  });
});

describe('isNullable', () => {
  it.each([
    [{ type: ['string', 'null'] }, true],
    [{ anyOf: [{ type: 'string' }, { type: 'null' }] }, true],
    [{ type: 'null' }, true],
    [{ type: 'string' }, false],
    [{ anyOf: [{ type: 'string' }, { type: 'integer' }] }, false],
    [{}, false],
  ])('%j -> %s', (fragment, expected) => {
    expect(isNullable(fragment)).toBe(expected);
  });
});
