import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { buildDownstreamRequest } from '../../forward/request.js';
import type { ToolDefinition } from '../../tools/definition.js';
import { buildToolRegistry } from '../../tools/registry.js';
import { importOpenApi, OpenApiDocumentError, type OpenApiImport } from './index.js';

const require = createRequire(import.meta.url);
/** The classic Swagger Petstore, as published in Swagger 2.0 (petstore.swagger.io/v2/swagger.json). */
const petstore2 = () =>
  JSON.parse(readFileSync(require.resolve('@readme/oas-examples/2.0/json/petstore.json'), 'utf8')) as Record<
    string,
    unknown
  >;
const byName = (result: OpenApiImport, name: string) =>
  result.tools.find((tool) => tool.name === name) as ToolDefinition;
const swagger = (paths: Record<string, unknown>, more: Record<string, unknown> = {}) => ({
  swagger: '2.0',
  info: { title: 'hostile', version: '1' },
  paths,
  ...more,
});
const ok = { 200: { description: 'ok' } };

describe('Swagger 2.0: the classic Petstore, converted to OpenAPI 3.0', () => {
  const result = importOpenApi(petstore2(), { prefix: 'pets' });

  it('imports every operation it can call, and says why for each one left out', () => {
    expect(result).toMatchObject({ version: '3.0', convertedFrom: '2.0' });
    expect(buildToolRegistry(result.tools).problems).toEqual([]);
    expect(result.tools.length + result.skipped.length).toBe(20);
    expect(result.skipped.map(({ operationId, reason }) => `${operationId}: ${reason}`).sort()).toEqual([
      'createUsersWithArrayInput: its JSON request body is not an object with named properties, which the gateway sends bodies as',
      'createUsersWithListInput: its JSON request body is not an object with named properties, which the gateway sends bodies as',
      'uploadFile: its form parameter "file" (a file) cannot be sent: the gateway sends only path and query inputs and a JSON body',
    ]);
    expect(result.notes).toContainEqual({
      operation: 'POST /pet/{petId}',
      operationId: 'updatePetWithForm',
      reason: 'optional request body (application/x-www-form-urlencoded) left out: not JSON',
    });
    expect(result.notes).toContainEqual({
      operation: 'DELETE /pet/{petId}',
      operationId: 'deletePet',
      reason: 'optional header parameter "api_key" left out',
    });
  });

  it('maps the body parameter to body inputs, with its definition resolved', () => {
    const addPet = byName(result, 'addPet');
    expect(addPet).toMatchObject({ httpMethod: 'POST', routePattern: '/pet', allowWrite: false, category: 'pet' });
    expect(addPet.parameterSources).toEqual({
      id: 'body',
      category: 'body',
      name: 'body',
      photoUrls: 'body',
      tags: 'body',
      status: 'body',
    });
    expect(addPet.inputSchema.required).toEqual(['name', 'photoUrls']);
    expect(addPet.inputSchema.properties.status).toMatchObject({
      type: 'string',
      enum: ['available', 'pending', 'sold'],
    });
    expect(addPet.inputSchema.properties.category).toMatchObject({
      type: 'object',
      properties: { id: { type: 'integer', format: 'int64' }, name: { type: 'string' } },
    });
    expect(
      buildDownstreamRequest(addPet, { name: 'Rex', photoUrls: ['https://x/rex.jpg'], status: 'available' }),
    ).toEqual({
      method: 'POST',
      path: '/pet',
      body: JSON.stringify({ name: 'Rex', photoUrls: ['https://x/rex.jpg'], status: 'available' }),
    });
  });

  it('maps path and query parameters, arrays serialized as collectionFormat says (multi: repeated)', () => {
    const byId = byName(result, 'getPetById');
    expect(byId.parameterSources).toEqual({ petId: 'route' });
    expect(byId.inputSchema.properties.petId).toMatchObject({ type: 'integer', format: 'int64' });
    expect(buildDownstreamRequest(byId, { petId: 7 })).toEqual({ method: 'GET', path: '/pet/7' });

    const byStatus = byName(result, 'findPetsByStatus');
    expect(byStatus.parameterSources).toEqual({ status: 'query' });
    expect(byStatus.inputSchema.required).toEqual(['status']);
    expect(byStatus.inputSchema.properties.status).toMatchObject({
      type: 'array',
      items: { enum: ['available', 'pending', 'sold'] },
    });
    expect(buildDownstreamRequest(byStatus, { status: ['available', 'sold'] }).path).toBe(
      '/pet/findByStatus?status=available&status=sold',
    );

    const login = byName(result, 'loginUser');
    expect(buildDownstreamRequest(login, { username: 'ann', password: 'p w' }).path).toBe(
      '/user/login?username=ann&password=p+w',
    );
    // The document's host and basePath (petstore.swagger.io/v2) are never used: BaseUrl decides.
    expect(buildDownstreamRequest(byName(result, 'getUserByName'), { username: 'ann' }, '/v2')).toEqual({
      method: 'GET',
      path: '/v2/user/ann',
    });
  });

  it('updateUser: the body property named like the path parameter is the input body_username, sent back as "username"', () => {
    const update = byName(result, 'updateUser');
    expect(update.parameterSources).toMatchObject({ username: 'route', body_username: 'body', email: 'body' });
    expect(update.bodyNames).toEqual({ body_username: 'username' });
    expect(update.inputSchema.properties.body_username).toEqual({
      type: 'string',
      description: 'Sent as "username" in the JSON body.',
    });
    expect(buildDownstreamRequest(update, { username: 'ann', body_username: 'anne', email: 'a@x' })).toEqual({
      method: 'PUT',
      path: '/user/ann',
      body: '{"username":"anne","email":"a@x"}',
    });
  });

  it('collectionFormat csv and pipes are kept; tsv, which OpenAPI 3 cannot say, costs its operation', () => {
    const array = (collectionFormat: string) => ({
      name: 'ids',
      in: 'query',
      type: 'array',
      items: { type: 'integer' },
      collectionFormat,
    });
    const doc = swagger({
      '/csv': { get: { operationId: 'csv', parameters: [array('csv')], responses: ok } },
      '/pipes': { get: { operationId: 'pipes', parameters: [array('pipes')], responses: ok } },
      '/tsv': { get: { operationId: 'tsv', parameters: [array('tsv')], responses: ok } },
    });
    const imported = importOpenApi(doc);
    expect(buildDownstreamRequest(byName(imported, 'csv'), { ids: [1, 2] }).path).toBe('/csv?ids=1%2C2');
    expect(buildDownstreamRequest(byName(imported, 'pipes'), { ids: [1, 2] }).path).toBe('/pipes?ids=1%7C2');
    expect(imported.skipped).toEqual([
      {
        operation: 'GET /tsv',
        operationId: 'tsv',
        reason: 'parameter "ids" is tab-separated (collectionFormat tsv), which OpenAPI 3 cannot describe',
      },
    ]);
  });
});

describe('hostile Swagger 2.0 documents', () => {
  it('a required form field, even through a shared parameter, costs its operation only', () => {
    const doc = swagger(
      {
        '/form': { post: { operationId: 'form', parameters: [{ $ref: '#/parameters/Token' }], responses: ok } },
        '/plain': { get: { operationId: 'plain', responses: ok } },
      },
      { parameters: { Token: { name: 'token', in: 'formData', required: true, type: 'string' } } },
    );
    const imported = importOpenApi(doc);
    expect(imported.tools.map((tool) => tool.name)).toEqual(['plain']);
    expect(imported.skipped[0]!.reason).toMatch(/form parameter "token" cannot be sent/);
  });

  it('$ref cycles in definitions become $defs', () => {
    const doc = swagger(
      {
        '/tree': {
          post: {
            operationId: 'plant',
            parameters: [{ name: 'b', in: 'body', required: true, schema: { $ref: '#/definitions/Node' } }],
            responses: ok,
          },
        },
      },
      {
        definitions: {
          Node: {
            type: 'object',
            properties: {
              label: { type: 'string', 'x-nullable': true },
              children: { type: 'array', items: { $ref: '#/definitions/Node' } },
            },
          },
        },
      },
    );
    const tool = importOpenApi(doc).tools[0]!;
    expect(tool.inputSchema.properties.label).toEqual({ type: ['string', 'null'] });
    expect(tool.inputSchema.properties.children).toEqual({ type: 'array', items: { $ref: '#/$defs/Node' } });
    expect(buildToolRegistry([tool]).problems).toEqual([]);
  });

  it('malformed documents are refused with a message, never a crash', () => {
    // Built afresh for each import: a Swagger 2.0 document is converted in place.
    const refusals = [
      () => swagger({ '/a': { get: { parameters: 'not a list', responses: ok } } }),
      () => swagger({ '/a': { get: { parameters: [null, 3], responses: ok } } }),
      () => swagger('not paths' as never),
      () => ({ swagger: '1.2', apis: [] }),
    ];
    for (const doc of refusals) expect(() => importOpenApi(doc())).toThrow(OpenApiDocumentError);
    expect(() => importOpenApi(refusals[0]!())).toThrow(/could not be converted to OpenAPI 3\.0/);
    expect(() => importOpenApi(refusals[3]!())).toThrow(
      /Swagger 1\.2 document; the gateway reads Swagger 2\.0, OpenAPI 3\.0 and 3\.1/,
    );
  });

  it('a definition nested 100,000 levels deep is refused as too deep, not a stack overflow', () => {
    let deep: Record<string, unknown> = { type: 'string' };
    for (let level = 0; level < 100_000; level++) deep = { type: 'object', properties: { a: deep } };
    expect(() => importOpenApi(swagger({}, { definitions: { Deep: deep } }))).toThrow(
      /could not be converted to OpenAPI 3\.0 \(it nests too deeply\)/,
    );
  });

  it('1,000 levels (as the OpenAPI 3 hostile set) convert, and cost only the operation that uses them', () => {
    let deep: Record<string, unknown> = { type: 'string' };
    for (let level = 0; level < 1000; level++) deep = { type: 'object', properties: { a: deep } };
    const doc = swagger(
      {
        '/deep': {
          post: {
            operationId: 'deep',
            parameters: [{ name: 'b', in: 'body', schema: { $ref: '#/definitions/Deep' } }],
            responses: ok,
          },
        },
        '/ok': { get: { operationId: 'fine', responses: ok } },
      },
      { definitions: { Deep: deep } },
    );
    const imported = importOpenApi(doc);
    expect(imported.tools.map((tool) => tool.name)).toEqual(['fine']);
    expect(imported.skipped[0]!.reason).toMatch(/nest deeper than 64 levels/);
  });
});
