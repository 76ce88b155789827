import { describe, expect, it } from 'vitest';
import { describeToolProblem, parseToolDefinitions } from './definition.js';
import { createOrder, getCustomer } from '../testing/tool-fixtures.js';

describe('parseToolDefinitions', () => {
  it('reads valid definitions and fills the spec defaults', () => {
    const minimal = {
      name: 'ping',
      description: 'Answers pong.',
      httpMethod: 'GET',
      routePattern: '/ping',
      parameterSources: {},
      inputSchema: { type: 'object', properties: {}, required: [] },
    };
    const { tools, problems } = parseToolDefinitions([getCustomer, minimal]);
    expect(problems).toEqual([]);
    expect(tools.map((tool) => tool.name)).toEqual(['getCustomer', 'ping']);
    expect(tools[1]).toMatchObject({ allowWrite: false, maxResponseTokens: 2000, category: null, requiredScopes: [] });
  });

  it('accepts requiredScopes: null as no scopes', () => {
    expect(parseToolDefinitions([{ ...getCustomer, requiredScopes: null }]).tools[0]?.requiredScopes).toEqual([]);
  });

  it('reads the cache settings a tool opts into, and refuses malformed ones', () => {
    expect(parseToolDefinitions([getCustomer]).tools[0]?.cache).toBeUndefined();
    expect(parseToolDefinitions([{ ...getCustomer, cache: {} }]).tools[0]?.cache).toEqual({
      semantic: false,
      significantTerms: [],
    });
    const search = { ...getCustomer, cache: { semantic: true, significantTerms: ['hardware', ['monitor', 'screen']] } };
    expect(parseToolDefinitions([search]).tools[0]?.cache).toEqual(search.cache);
    // A field this gateway does not know is dropped, as at the top level.
    expect(parseToolDefinitions([{ ...getCustomer, cache: { semantic: true, ttl: 5 } }]).tools[0]?.cache).toEqual({
      semantic: true,
      significantTerms: [],
    });
    for (const cache of [
      { semantic: 'yes' },
      { semantic: true, significantTerms: [''] },
      { semantic: true, significantTerms: [[]] },
      true,
    ]) {
      const { tools, problems } = parseToolDefinitions([{ ...getCustomer, cache }]);
      expect(tools, JSON.stringify(cache)).toEqual([]);
      expect(problems[0]?.issues[0]?.path).toMatch(/^cache/);
    }
  });

  it('leaves out each bad entry with a clear reason and keeps the good ones', () => {
    const { tools, problems } = parseToolDefinitions([
      { ...getCustomer, name: '' },
      createOrder,
      { ...getCustomer, name: 'badVerb', httpMethod: 'FETCH' },
      'not an object',
      { ...getCustomer, name: 'getCustomer' },
      { ...getCustomer },
    ]);
    expect(tools.map((tool) => tool.name)).toEqual(['createOrder', 'getCustomer']);
    expect(problems.map((problem) => [problem.index, problem.name])).toEqual([
      [0, ''],
      [2, 'badVerb'],
      [3, null],
      [5, 'getCustomer'],
    ]);
    expect(describeToolProblem(problems[1]!)).toBe(
      'tool "badVerb" (#2): httpMethod: must be one of GET, POST, PUT, PATCH, DELETE',
    );
    expect(describeToolProblem(problems[3]!)).toBe('tool "getCustomer" (#5): name: another tool already has this name');
  });

  it.each([
    [
      'an input without a source',
      { parameterSources: { id: 'route' } },
      'parameterSources: input "expand" has no source',
    ],
    [
      'a source that is not an input',
      { parameterSources: { id: 'route', expand: 'query', extra: 'body' } },
      '"extra" is not an input',
    ],
    [
      'a placeholder that is not a route input',
      { routePattern: '/customers/{expand}/x/{id}' },
      'placeholder {expand} is not a route-sourced input',
    ],
    [
      'a route input missing from the pattern',
      { routePattern: '/customers' },
      'route input "id" has no {id} in routePattern',
    ],
    [
      'a traversal segment in the pattern',
      { routePattern: '/a/../customers/{id}' },
      'must not contain . or .. segments',
    ],
    ['a query string in the pattern', { routePattern: '/customers/{id}?admin=1' }, 'must be an absolute path'],
    ['a relative pattern', { routePattern: 'customers/{id}' }, 'must be an absolute path'],
    [
      'an optional route input',
      { inputSchema: { ...getCustomer.inputSchema, required: [] } },
      'route input "id" must be required',
    ],
    ['a non-object input schema', { inputSchema: { type: 'array', properties: {}, required: [] } }, 'inputSchema.type'],
    ['a zero token cap', { maxResponseTokens: 0 }, 'maxResponseTokens'],
  ])('reports %s', (_name, change, message) => {
    const { tools, problems } = parseToolDefinitions([{ ...getCustomer, ...change }]);
    expect(tools).toEqual([]);
    expect(describeToolProblem(problems[0]!)).toContain(message);
  });

  it('reads confirm (default false)', () => {
    expect(parseToolDefinitions([getCustomer]).tools[0]?.confirm).toBe(false);
    expect(parseToolDefinitions([{ ...createOrder, confirm: true }]).tools[0]?.confirm).toBe(true);
  });

  describe('x-mcp-header marks (MCP 2026-07-28)', () => {
    const marked = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
      ...getCustomer,
      parameterSources: Object.fromEntries(Object.keys(properties).map((name) => [name, 'query'])),
      routePattern: '/customers',
      inputSchema: { type: 'object', properties, required: [], ...extra },
    });

    it('loads a tool whose marks follow the rules, nested properties included', () => {
      const tool = marked({
        region: { type: 'string', 'x-mcp-header': 'Region' },
        filter: { type: 'object', properties: { tenant: { type: 'integer', 'x-mcp-header': 'Tenant' } } },
      });
      expect(parseToolDefinitions([tool]).problems).toEqual([]);
    });

    it.each([
      [
        'a name that is not a token',
        { region: { type: 'string', 'x-mcp-header': 'My Region' } },
        {},
        'inputSchema.properties.region.x-mcp-header',
        /not an HTTP token/,
      ],
      [
        'an empty name',
        { region: { type: 'string', 'x-mcp-header': '' } },
        {},
        'inputSchema.properties.region.x-mcp-header',
        /non-empty string/,
      ],
      [
        'a name that is not a string',
        { region: { type: 'string', 'x-mcp-header': 7 } },
        {},
        'inputSchema.properties.region.x-mcp-header',
        /non-empty string/,
      ],
      [
        'two names equal but for case',
        { a: { type: 'string', 'x-mcp-header': 'Region' }, b: { type: 'string', 'x-mcp-header': 'REGION' } },
        {},
        'inputSchema.properties.b.x-mcp-header',
        /case-insensitive/,
      ],
      [
        'a number',
        { ratio: { type: 'number', 'x-mcp-header': 'Ratio' } },
        {},
        'inputSchema.properties.ratio.x-mcp-header',
        /number parameter/,
      ],
      [
        'an object',
        { filter: { type: 'object', 'x-mcp-header': 'Filter' } },
        {},
        'inputSchema.properties.filter.x-mcp-header',
        /only a string, integer or boolean/,
      ],
      [
        'a mark inside items',
        { tags: { type: 'array', items: { type: 'string', 'x-mcp-header': 'Tag' } } },
        {},
        'inputSchema.properties.tags.items.x-mcp-header',
        /properties alone/,
      ],
      [
        'a mark inside $defs',
        { region: { type: 'string' } },
        { $defs: { r: { type: 'string', 'x-mcp-header': 'Region' } } },
        'inputSchema.$defs.r.x-mcp-header',
        /properties alone/,
      ],
      [
        'a mark inside oneOf',
        { region: { type: 'string' } },
        { oneOf: [{ properties: { region: { type: 'string', 'x-mcp-header': 'Region' } } }] },
        'inputSchema.oneOf.0.properties.region.x-mcp-header',
        /properties alone/,
      ],
    ])(
      'refuses the tool for %s, with where and why, and keeps the others',
      (_label, properties, extra, path, message) => {
        const { tools, problems } = parseToolDefinitions([marked(properties, extra), createOrder]);
        expect(tools.map((tool) => tool.name)).toEqual(['createOrder']);
        expect(problems).toEqual([
          {
            index: 0,
            name: 'getCustomer',
            issues: [expect.objectContaining({ path, message: expect.stringMatching(message) })],
          },
        ]);
      },
    );
  });

  it('reads bodyNames for body inputs only, and refuses two body inputs sent as one property', () => {
    const rename = {
      name: 'renameVariable',
      description: 'Renames a variable.',
      httpMethod: 'PATCH',
      routePattern: '/variables/{name}',
      parameterSources: { name: 'route', body_name: 'body', value: 'body' },
      inputSchema: {
        type: 'object',
        properties: { name: { type: 'string' }, body_name: { type: 'string' }, value: { type: 'string' } },
        required: ['name'],
      },
    };
    expect(parseToolDefinitions([{ ...rename, bodyNames: { body_name: 'name' } }]).tools[0]?.bodyNames).toEqual({
      body_name: 'name',
    });
    const notBody = parseToolDefinitions([{ ...rename, bodyNames: { name: 'other' } }]);
    expect(notBody.problems[0]?.issues).toContainEqual({
      path: 'bodyNames.name',
      message: '"name" is not a body input',
    });
    const twice = parseToolDefinitions([{ ...rename, bodyNames: { body_name: 'value' } }]);
    expect(twice.problems[0]?.issues).toContainEqual({
      path: 'bodyNames.value',
      message: 'body inputs "body_name" and "value" would both be sent as "value"',
    });
  });

  it('reports a schema that is not an array', () => {
    expect(parseToolDefinitions({ tools: [] }).problems[0]?.issues[0]?.message).toMatch(/JSON array/);
  });

  describe('JSON Schema dialects and $ref', () => {
    const DRAFT_2020_12 = 'https://json-schema.org/draft/2020-12/schema';
    const DRAFT_07 = 'http://json-schema.org/draft-07/schema#';
    const findOrders = {
      name: 'findOrders',
      description: 'Orders of a customer.',
      httpMethod: 'POST',
      routePattern: '/customers/{customerId}/orders/search',
      parameterSources: { customerId: 'route', status: 'query', filter: 'body' },
      inputSchema: {
        $schema: DRAFT_2020_12,
        type: 'object',
        $defs: {
          CustomerId: { type: 'string', pattern: '^c[0-9]+$' },
          Status: { $ref: '#/$defs/StatusName' },
          StatusName: { type: 'string', enum: ['open', 'shipped'] },
          Filter: { type: 'object', properties: { since: { type: 'string' } }, additionalProperties: false },
        },
        properties: {
          customerId: { $ref: '#/$defs/CustomerId' },
          status: { $ref: '#/$defs/Status', description: 'Order status.' },
          filter: { $ref: '#/$defs/Filter' },
        },
        required: ['customerId'],
        additionalProperties: false,
      },
    };
    const withInput = (source: string, ref: string, defs: Record<string, unknown> = findOrders.inputSchema.$defs) => ({
      ...findOrders,
      parameterSources: { ...findOrders.parameterSources, status: source },
      routePattern: source === 'route' ? '/customers/{customerId}/orders/{status}' : findOrders.routePattern,
      inputSchema: {
        ...findOrders.inputSchema,
        $defs: defs,
        properties: { ...findOrders.inputSchema.properties, status: { $ref: ref } },
        required: ['customerId', 'status'],
      },
    });

    it('reads a 2020-12 schema with $schema, $defs, $ref-only properties and additionalProperties, keeping them', () => {
      const { tools, problems } = parseToolDefinitions([findOrders]);
      expect(problems).toEqual([]);
      expect(tools[0]?.inputSchema).toEqual(findOrders.inputSchema);
    });

    it.each([DRAFT_07, 'http://json-schema.org/draft-07/schema', `${DRAFT_2020_12}#`])(
      'reads the dialect %s',
      (dialect) => {
        const draft07 = { ...findOrders, inputSchema: { ...findOrders.inputSchema, $schema: dialect } };
        expect(parseToolDefinitions([draft07]).problems).toEqual([]);
      },
    );

    it('refuses an unknown dialect, naming the tool, and keeps the other tools', () => {
      const odd = {
        ...findOrders,
        name: 'oddDialect',
        inputSchema: { ...findOrders.inputSchema, $schema: 'https://json-schema.org/draft/2019-09/schema' },
      };
      const { tools, problems } = parseToolDefinitions([getCustomer, odd]);
      expect(tools.map((tool) => tool.name)).toEqual(['getCustomer']);
      expect(describeToolProblem(problems[0]!)).toBe(
        'tool "oddDialect" (#1): inputSchema.$schema: unsupported JSON Schema dialect "https://json-schema.org/draft/2019-09/schema": ' +
          'use https://json-schema.org/draft/2020-12/schema or http://json-schema.org/draft-07/schema#',
      );
    });

    it('refuses a property with neither type nor $ref', () => {
      const untyped = {
        ...getCustomer,
        inputSchema: {
          ...getCustomer.inputSchema,
          properties: { ...getCustomer.inputSchema.properties, expand: { description: 'x' } },
        },
      };
      expect(describeToolProblem(parseToolDefinitions([untyped]).problems[0]!)).toContain(
        'inputSchema.properties.expand.type: must have a type or a $ref',
      );
    });

    it('accepts a route or query input whose $ref resolves, through other $refs, to a typed definition', () => {
      expect(parseToolDefinitions([withInput('route', '#/$defs/Status')]).problems).toEqual([]);
      const draft07 = {
        ...getCustomer,
        inputSchema: {
          $schema: DRAFT_07,
          type: 'object',
          definitions: { Id: { type: 'string' }, Flag: { type: 'boolean' } },
          properties: { id: { $ref: '#/definitions/Id' }, expand: { $ref: '#/definitions/Flag' } },
          required: ['id'],
        },
      };
      expect(parseToolDefinitions([draft07]).problems).toEqual([]);
    });

    it.each([
      [
        'a remote $ref',
        'https://example.com/schemas/status.json',
        "must point into this schema's $defs or definitions",
      ],
      ['a $ref to a missing definition', '#/$defs/Nope', "must point into this schema's $defs or definitions"],
      ['an anchor', '#StatusName', "must point into this schema's $defs or definitions"],
      ['a $ref to an untyped definition', '#/$defs/Either', 'resolves to a schema without a type'],
      ['a $ref cycle', '#/$defs/Loop', 'goes through more than 8 $refs'],
    ])('refuses a route or query input with %s, which leaves its type unknown', (_name, ref, message) => {
      const defs = {
        ...findOrders.inputSchema.$defs,
        Either: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
        Loop: { $ref: '#/$defs/Loop' },
      };
      for (const source of ['route', 'query']) {
        const { tools, problems } = parseToolDefinitions([withInput(source, ref, defs)]);
        expect(tools).toEqual([]);
        expect(describeToolProblem(problems[0]!)).toContain(
          `inputSchema.properties.status.$ref: ${source} input "status": $ref ${JSON.stringify(ref)} ${message}`,
        );
      }
    });

    it('lets a body input $ref any definition, typed or not', () => {
      const defs = { ...findOrders.inputSchema.$defs, Either: { anyOf: [{ type: 'string' }, { type: 'integer' }] } };
      expect(parseToolDefinitions([withInput('body', '#/$defs/Either', defs)]).problems).toEqual([]);
    });

    it('still requires route inputs to be declared and required when they are $refs', () => {
      const optional = { ...findOrders, inputSchema: { ...findOrders.inputSchema, required: [] } };
      expect(describeToolProblem(parseToolDefinitions([optional]).problems[0]!)).toContain(
        'route input "customerId" must be required',
      );
      const { customerId: _dropped, ...properties } = findOrders.inputSchema.properties;
      const undeclared = { ...findOrders, inputSchema: { ...findOrders.inputSchema, properties } };
      expect(describeToolProblem(parseToolDefinitions([undeclared]).problems[0]!)).toContain(
        '"customerId" is not an input of inputSchema',
      );
    });
  });
});
