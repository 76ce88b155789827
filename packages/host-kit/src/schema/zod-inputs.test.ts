import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { isZodObject, zodObjectInputs } from './zod-inputs.js';

describe('zodObjectInputs', () => {
  it('maps zod types per contract 4.6 rule 3 and keeps .describe() text', () => {
    const schema = z.object({
      id: z.int().describe('Order id'),
      price: z.number(),
      paid: z.boolean(),
      coerced: z.coerce.number(),
      status: z.enum(['open', 'shipped']),
      placedAfter: z.iso.datetime(),
      at: z.date(),
      big: z.bigint(),
      either: z.union([z.string(), z.int()]),
    });
    const byName = Object.fromEntries(zodObjectInputs(schema, 'query').map((c) => [c.name, c.property]));
    expect(byName).toEqual({
      id: { type: 'integer', description: 'Order id' },
      price: { type: 'number', description: null },
      paid: { type: 'boolean', description: null },
      coerced: { type: 'number', description: null },
      status: { type: 'string', description: null },
      placedAfter: { type: 'string', description: null },
      at: { type: 'string', description: null },
      big: { type: 'string', description: null },
      either: { type: 'string', description: null },
    });
  });

  it('treats optional, nullable and defaulted properties as optional', () => {
    const schema = z.object({
      required: z.string(),
      optional: z.string().optional(),
      nullable: z.int().nullable(),
      defaulted: z.boolean().default(false),
    });
    const required = Object.fromEntries(zodObjectInputs(schema, 'body').map((c) => [c.name, c.required]));
    expect(required).toEqual({ required: true, optional: false, nullable: false, defaulted: false });
  });

  it('maps a nullable property like its underlying type with null beside it, and keeps optional apart', () => {
    const [input] = zodObjectInputs(z.object({ limit: z.int().nullable().describe('Page size') }), 'query');
    expect(input?.property).toEqual({ type: ['integer', 'null'], description: 'Page size' });
    const [note] = zodObjectInputs(z.object({ note: z.string().nullable() }), 'body');
    expect(note?.property.type).toEqual(['string', 'null']);
    const [optional] = zodObjectInputs(z.object({ note: z.string().optional() }), 'body');
    expect(optional).toMatchObject({ property: { type: 'string' }, required: false });
  });

  it('keeps arrays and nested objects in their JSON Schema shape', () => {
    const schema = z.object({
      tags: z.array(z.string()).describe('Labels'),
      address: z.object({ street: z.string(), zip: z.string().optional() }),
    });
    const byName = Object.fromEntries(zodObjectInputs(schema, 'body').map((c) => [c.name, c.property]));
    expect(byName.tags).toEqual({ type: 'array', items: { type: 'string' }, description: 'Labels' });
    expect(byName.address).toMatchObject({
      type: 'object',
      properties: { street: { type: 'string' }, zip: { type: 'string' } },
      required: ['street'],
      description: null,
    });
  });

  it('makes every property optional when asked (a nullable body)', () => {
    const inputs = zodObjectInputs(z.object({ a: z.string(), b: z.int() }), 'body', true);
    expect(inputs.map((c) => c.required)).toEqual([false, false]);
    expect(inputs.map((c) => c.source)).toEqual(['body', 'body']);
  });
});

describe('isZodObject', () => {
  it('recognises zod objects only', () => {
    expect(isZodObject(z.object({}))).toBe(true);
    expect(isZodObject(z.string())).toBe(false);
    expect(isZodObject(z.object({}).optional())).toBe(false);
    expect(isZodObject({ shape: {} })).toBe(false);
    expect(isZodObject(null)).toBe(false);
  });
});
