import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../errors.js';
import { validateToolArguments } from './arguments.js';
import { buildToolRegistry, COMPILE_AT_BUILD_MAX } from './registry.js';
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

  it('never serves description: null, however deep, and lets a nullable input take null (issue 29)', () => {
    const nullable = {
      ...getCustomer,
      name: 'noted',
      httpMethod: 'POST',
      routePattern: '/notes',
      allowWrite: true,
      parameterSources: { note: 'body', address: 'body', tags: 'body' },
      inputSchema: {
        type: 'object',
        properties: {
          note: { type: ['string', 'null'], description: null },
          address: {
            type: 'object',
            description: null,
            properties: { zip: { type: 'string', description: null } },
            required: [],
          },
          tags: { type: 'array', description: null, items: { type: 'string', description: null } },
        },
        required: ['note'],
      },
    };
    const { registry, problems } = registryOf(nullable);
    expect(problems).toEqual([]);
    const tool = registry.get('noted')!;
    expect(JSON.stringify(tool.inputSchema)).not.toContain('"description":null');
    expect(tool.inputSchema.properties).toEqual({
      note: { type: ['string', 'null'] },
      address: { type: 'object', properties: { zip: { type: 'string' } }, required: [] },
      tags: { type: 'array', items: { type: 'string' } },
    });
    expect(tool.validateArguments({ note: null })).toBe(true);
  });

  it('leaves out a tool whose input schema ajv cannot compile, naming it', () => {
    const broken = {
      ...getCustomer,
      name: 'broken',
      inputSchema: {
        ...getCustomer.inputSchema,
        properties: { ...getCustomer.inputSchema.properties, expand: { type: 'boolen', description: null } },
      },
    };
    const { registry, problems } = registryOf(getCustomer, broken);
    expect(registry.list().map((tool) => tool.definition.name)).toEqual(['getCustomer']);
    expect(problems).toMatchObject([{ index: 1, name: 'broken', issues: [{ path: 'inputSchema' }] }]);
  });
});

describe('buildToolRegistry: a registry past COMPILE_AT_BUILD_MAX tools (a whole imported API)', () => {
  const many = Array.from({ length: COMPILE_AT_BUILD_MAX }, (_, index) => ({ ...getCustomer, name: `tool${index}` }));
  const broken = {
    ...getCustomer,
    name: 'broken',
    inputSchema: {
      ...getCustomer.inputSchema,
      properties: { ...getCustomer.inputSchema.properties, expand: { type: 'boolen' } },
    },
  };
  const badPattern = {
    ...getCustomer,
    name: 'badPattern',
    inputSchema: {
      ...getCustomer.inputSchema,
      properties: { ...getCustomer.inputSchema.properties, id: { type: 'string', pattern: '(' } },
    },
  };

  it('still leaves out, at build, a schema its dialect refuses', () => {
    const { registry, problems } = registryOf(...many, broken);
    expect(registry.size).toBe(COMPILE_AT_BUILD_MAX);
    expect(problems).toMatchObject([
      { name: 'broken', issues: [{ path: 'inputSchema', message: expect.stringContaining('type') }] },
    ]);
  });

  it('compiles each schema on its first call and checks arguments exactly as a small registry does', () => {
    const { registry } = registryOf(...many);
    const tool = registry.get('tool7')!;
    expect(validateToolArguments(tool, { id: 'c1', expand: true })).toEqual({ id: 'c1', expand: true });
    expect(refusal(() => validateToolArguments(tool, { id: 1 })).message).toBe(
      refusal(() =>
        validateToolArguments(registryOf(getCustomer).registry.get('getCustomer')!, { id: 1 }),
      ).message.replace('getCustomer', 'tool7'),
    );
  });

  it('refuses every call of a tool whose schema compiles only to fail, saying why, and forwards nothing', () => {
    const { registry } = registryOf(...many, badPattern);
    const error = refusal(() => validateToolArguments(registry.get('badPattern')!, { id: 'x' }));
    expect(error.message).toMatch(/input schema does not compile/);
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
    expect(refusal(() => validateToolArguments(order, [1, 2])).fields).toEqual([
      { path: '', message: 'must be an object' },
    ]);
    expect(refusal(() => validateToolArguments(order, 'x')).message).toMatch(/must be an object/);
  });

  it('does not coerce: a number is not a string', () => {
    const error = refusal(() => validateToolArguments(registry.get('getCustomer')!, { id: 42 }));
    expect(error.fields).toEqual([{ path: 'id', message: 'must be string' }]);
  });
});

describe('JSON Schema dialects', () => {
  const searchOrders = {
    name: 'searchOrders',
    description: 'Finds orders.',
    httpMethod: 'POST',
    routePattern: '/customers/{customerId}/orders/search',
    parameterSources: { customerId: 'route', status: 'query', filter: 'body', window: 'body' },
    inputSchema: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: {
        CustomerId: { type: 'string', pattern: '^c[0-9]+$' },
        Status: { type: 'string', enum: ['open', 'shipped'] },
        Filter: {
          type: 'object',
          properties: { since: { type: 'string', format: 'date' } },
          required: ['since'],
          additionalProperties: false,
        },
      },
      properties: {
        customerId: { $ref: '#/$defs/CustomerId' },
        status: { $ref: '#/$defs/Status', description: 'Order status.' },
        filter: { $ref: '#/$defs/Filter' },
        window: { type: 'array', prefixItems: [{ type: 'integer' }, { type: 'integer' }], items: false },
      },
      required: ['customerId'],
      additionalProperties: false,
    },
  };
  const draft07 = {
    ...searchOrders,
    name: 'searchOrders07',
    parameterSources: { customerId: 'route', status: 'query', filter: 'body', window: 'body' },
    inputSchema: {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      definitions: searchOrders.inputSchema.$defs,
      properties: {
        customerId: { $ref: '#/definitions/CustomerId' },
        status: { $ref: '#/definitions/Status' },
        filter: { $ref: '#/definitions/Filter' },
        window: { type: 'array', items: [{ type: 'integer' }, { type: 'integer' }], additionalItems: false },
      },
      required: ['customerId'],
    },
  };
  const { registry, problems } = registryOf(searchOrders, draft07, getCustomer);

  it('compiles 2020-12 and draft-07 schemas, keeping $schema and $defs as served', () => {
    expect(problems).toEqual([]);
    expect(registry.get('searchOrders')?.inputSchema).toEqual(searchOrders.inputSchema);
    expect(registry.get('searchOrders07')?.inputSchema).toEqual({
      ...draft07.inputSchema,
      additionalProperties: false,
    });
  });

  it.each(['searchOrders', 'searchOrders07'])("validates %s arguments against the $ref'd definitions", (name) => {
    const tool = registry.get(name)!;
    const good = { customerId: 'c42', status: 'open', filter: { since: '2025-05-01' }, window: [1, 2] };
    expect(validateToolArguments(tool, good)).toBe(good);
    const error = refusal(() =>
      validateToolArguments(tool, {
        customerId: 'x',
        status: 'lost',
        filter: { since: '2025-05-01', until: 'x' },
        window: [1, 2, 3],
      }),
    );
    expect(error.fields).toEqual([
      { path: 'customerId', message: 'must match pattern "^c[0-9]+$"' },
      { path: 'status', message: 'must be equal to one of the allowed values' },
      { path: 'filter.until', message: 'is not an input of this tool' },
      { path: 'window', message: expect.stringMatching(/must NOT have more than 2 items/) },
    ]);
    expect(refusal(() => validateToolArguments(tool, { customerId: 'c1', filter: {} })).fields).toEqual([
      { path: 'filter.since', message: 'is required' },
    ]);
    expect(refusal(() => validateToolArguments(tool, { customerId: 'c1', extra: 1 })).fields).toEqual([
      { path: 'extra', message: 'is not an input of this tool' },
    ]);
  });

  it('reads a schema without $schema as 2020-12', () => {
    const { $schema: _dialect, ...noDialect } = searchOrders.inputSchema;
    const { registry: plain, problems: none } = registryOf({ ...searchOrders, inputSchema: noDialect });
    expect(none).toEqual([]);
    expect(() => validateToolArguments(plain.get('searchOrders')!, { customerId: 'c1', window: [1, 2] })).not.toThrow();
    expect(
      refusal(() => validateToolArguments(plain.get('searchOrders')!, { customerId: 'c1', window: [1, 'x'] })).fields,
    ).toEqual([{ path: 'window.1', message: 'must be integer' }]);
  });

  it('leaves out a tool with an unknown dialect, naming it, and builds the others', () => {
    const odd = {
      ...searchOrders,
      name: 'oddDialect',
      inputSchema: { ...searchOrders.inputSchema, $schema: 'http://json-schema.org/draft-04/schema#' },
    };
    const built = registryOf(getCustomer, odd, createOrder);
    expect(built.registry.list().map((tool) => tool.definition.name)).toEqual(['getCustomer', 'createOrder']);
    expect(built.problems).toMatchObject([
      {
        index: 1,
        name: 'oddDialect',
        issues: [{ path: 'inputSchema.$schema', message: expect.stringContaining('unsupported JSON Schema dialect') }],
      },
    ]);
  });

  it('leaves out a tool whose body $ref ajv cannot resolve, naming it', () => {
    const dangling = {
      ...searchOrders,
      name: 'dangling',
      inputSchema: {
        ...searchOrders.inputSchema,
        properties: { ...searchOrders.inputSchema.properties, filter: { $ref: '#/$defs/Nope' } },
      },
    };
    const built = registryOf(dangling);
    expect(built.registry.size).toBe(0);
    expect(built.problems).toMatchObject([
      { name: 'dangling', issues: [{ path: 'inputSchema', message: expect.stringContaining('#/$defs/Nope') }] },
    ]);
  });
});
