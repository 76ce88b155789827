import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../errors.js';
import { validateToolArguments } from './arguments.js';
import { buildToolRegistry } from './registry.js';
import { createOrder, getCustomer } from '../testing/tool-fixtures.js';

function registryOf(...definitions: unknown[]) {
  return buildToolRegistry(definitions);
}

function refusal(run: () => unknown): InvalidInputError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidInputError);
    return error as InvalidInputError;
  }
  throw new Error('expected a refusal');
}

describe('buildToolRegistry', () => {
  it('holds the tools by name with the schema as enforced', () => {
    const { registry, problems } = registryOf(getCustomer, createOrder);
    expect(problems).toEqual([]);
    expect(registry.size).toBe(2);
    expect(registry.get('getCustomer')?.inputSchema).toEqual({
      type: 'object',
      properties: { id: { type: 'string', description: 'Customer id' }, expand: { type: 'boolean' } },
      required: ['id'],
      additionalProperties: false,
    });
    expect(registry.get('nope')).toBeUndefined();
  });

  it('leaves out a tool whose input schema ajv cannot compile, naming it', () => {
    const broken = { ...getCustomer, name: 'broken', inputSchema: { ...getCustomer.inputSchema, properties: { ...getCustomer.inputSchema.properties, expand: { type: 'boolen', description: null } } } };
    const { registry, problems } = registryOf(getCustomer, broken);
    expect(registry.list().map((tool) => tool.definition.name)).toEqual(['getCustomer']);
    expect(problems).toMatchObject([{ index: 1, name: 'broken', issues: [{ path: 'inputSchema' }] }]);
  });
});

describe('validateToolArguments', () => {
  const { registry } = registryOf(getCustomer, createOrder);
  const order = registry.get('createOrder')!;

  it('returns valid arguments as they are', () => {
    const args = { customerId: 'c1', sku: 'A-1', quantity: 2 };
    expect(validateToolArguments(order, args)).toBe(args);
  });

  it('treats absent arguments as an empty object', () => {
    const error = refusal(() => validateToolArguments(order, undefined));
    expect(error.fields.map((field) => field.path)).toEqual(['customerId', 'sku', 'quantity']);
  });

  it('refuses with -32602 and one field per problem', () => {
    const error = refusal(() => validateToolArguments(order, { customerId: 'c1', sku: 7, quantity: 1.5 }));
    expect(error.jsonRpcCode).toBe(-32602);
    expect(error.httpStatus).toBe(400);
    expect(error.fields).toEqual([
      { path: 'sku', message: 'must be string' },
      { path: 'quantity', message: 'must be integer' },
    ]);
    expect(error.message).toBe('Invalid arguments for tool createOrder: sku must be string; quantity must be integer');
  });

  it('refuses an argument the tool does not declare instead of dropping it', () => {
    const error = refusal(() => validateToolArguments(order, { customerId: 'c1', sku: 'A', quantity: 1, quantiy: 3 }));
    expect(error.fields).toEqual([{ path: 'quantiy', message: 'is not an input of this tool' }]);
  });

  it('refuses arguments that are not an object', () => {
    expect(refusal(() => validateToolArguments(order, [1, 2])).fields).toEqual([{ path: '', message: 'must be an object' }]);
    expect(refusal(() => validateToolArguments(order, 'x')).message).toMatch(/must be an object/);
  });

  it('does not coerce: a number is not a string', () => {
    const error = refusal(() => validateToolArguments(registry.get('getCustomer')!, { id: 42 }));
    expect(error.fields).toEqual([{ path: 'id', message: 'must be string' }]);
  });
});
