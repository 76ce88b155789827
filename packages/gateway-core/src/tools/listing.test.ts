import { describe, expect, it } from 'vitest';
import { toolsListResult } from './listing.js';
import { buildToolRegistry } from './registry.js';
import { createOrder, deleteCustomer, getCustomer } from '../testing/tool-fixtures.js';

const { registry } = buildToolRegistry([getCustomer, createOrder, deleteCustomer]);

describe('toolsListResult', () => {
  it('lists name, description and input schema for 2024-11-05 clients, without annotations', () => {
    const { tools } = toolsListResult(registry.list(), '2024-11-05');
    expect(tools[0]).toEqual({
      name: 'getCustomer',
      description: 'One customer by id.',
      inputSchema: registry.get('getCustomer')!.inputSchema,
    });
    expect(tools.some((tool) => 'annotations' in tool)).toBe(false);
  });

  it('adds read-only and destructive hints from 2025-03-26 on', () => {
    const { tools } = toolsListResult(registry.list(), '2025-03-26');
    expect(tools.map((tool) => [tool.name, tool.annotations])).toEqual([
      ['getCustomer', { readOnlyHint: true }],
      ['createOrder', { readOnlyHint: false, destructiveHint: false }],
      ['deleteCustomer', { readOnlyHint: false, destructiveHint: true }],
    ]);
  });

  it('never shows null descriptions, which are not valid JSON Schema', () => {
    expect(JSON.stringify(toolsListResult(registry.list(), '2025-06-18'))).not.toContain('null');
  });

  it('passes a 2020-12 schema through with $schema, $defs and $ref intact', () => {
    const inputSchema = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: { Id: { type: 'string', description: 'Customer id' } },
      properties: { id: { $ref: '#/$defs/Id' } },
      required: ['id'],
      additionalProperties: false,
    };
    const { registry: withRefs, problems } = buildToolRegistry([
      { ...getCustomer, parameterSources: { id: 'route' }, inputSchema },
    ]);
    expect(problems).toEqual([]);
    expect(JSON.parse(JSON.stringify(toolsListResult(withRefs.list(), '2025-11-25'))).tools[0].inputSchema).toEqual(
      inputSchema,
    );
  });
});
