import type { AgentRecord } from '../store/ports.js';

/** Tool definitions as a downstream serves them at /gw/schema; shared by the tools and forward tests. */
export const getCustomer = {
  name: 'getCustomer',
  description: 'One customer by id.',
  allowWrite: false,
  maxResponseTokens: 2000,
  category: 'customers',
  requiredScopes: [],
  httpMethod: 'GET',
  routePattern: '/customers/{id}',
  parameterSources: { id: 'route', expand: 'query' },
  inputSchema: {
    type: 'object',
    properties: {
      id: { type: 'string', description: 'Customer id' },
      expand: { type: 'boolean', description: null },
    },
    required: ['id'],
  },
};

export const createOrder = {
  name: 'createOrder',
  description: 'Places an order for a customer.',
  allowWrite: true,
  maxResponseTokens: 500,
  category: null,
  requiredScopes: ['orders:write'],
  httpMethod: 'POST',
  routePattern: '/customers/{customerId}/orders',
  parameterSources: { customerId: 'route', sku: 'body', quantity: 'body', dryRun: 'query' },
  inputSchema: {
    type: 'object',
    properties: {
      customerId: { type: 'string', description: null },
      sku: { type: 'string', description: 'Product code' },
      quantity: { type: 'integer', description: null },
      dryRun: { type: 'boolean', description: null },
    },
    required: ['customerId', 'sku', 'quantity'],
  },
};

export const deleteCustomer = {
  ...getCustomer,
  name: 'deleteCustomer',
  description: 'Deletes a customer.',
  allowWrite: true,
  httpMethod: 'DELETE',
  parameterSources: { id: 'route' },
  inputSchema: { type: 'object', properties: { id: { type: 'string', description: null } }, required: ['id'] },
};

/** A POST tool whose definition does not allow writes: nobody may call it. */
export const archiveCustomer = { ...deleteCustomer, name: 'archiveCustomer', allowWrite: false, httpMethod: 'POST' };

/** An active agent record with a 10 000-token budget and no allowlist; shared by the pipeline tests. */
export function testAgent(overrides: Partial<AgentRecord> = {}, at = new Date('2025-05-01T12:00:00Z')): AgentRecord {
  return {
    agentId: 'agt_test',
    label: 'test',
    dailyTokenBudget: 10_000,
    isActive: true,
    allowedTools: null,
    scopes: [],
    externalSubjects: [],
    rateLimit: null,
    createdAt: at.toISOString(),
    updatedAt: at.toISOString(),
    ...overrides,
  };
}

/**
 * A GET tool without parameters, as served at /gw/schema: for tests and bench scenarios with a downstream of their own.
 */
export function plainGetTool(name: string, routePattern: string, description: string = name) {
  return {
    name,
    description,
    allowWrite: false,
    maxResponseTokens: 2000,
    requiredScopes: [],
    httpMethod: 'GET',
    routePattern,
    parameterSources: {},
    inputSchema: { type: 'object', properties: {}, required: [] },
  };
}

/**
 * About `bytes` of customer records as JSON, the shape a list endpoint
 * answers with (e-mail addresses included, for the privacy filter).
 */
export function bigRecords(bytes: number): Buffer {
  const items = [];
  for (let id = 0, size = 0; size < bytes; id++) {
    const item = {
      id,
      name: `Customer number ${id}`,
      email: `user${id}@example.com`,
      note: 'Lorem ipsum dolor sit amet, consectetur adipiscing elit',
      tags: ['a', 'b'],
      score: id * 1.5,
    };
    items.push(item);
    size += JSON.stringify(item).length + 1;
  }
  return Buffer.from(JSON.stringify({ items }));
}
