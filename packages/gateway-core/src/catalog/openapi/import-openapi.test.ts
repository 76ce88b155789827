import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { buildDownstreamRequest } from '../../forward/request.js';
import { buildToolRegistry } from '../../tools/registry.js';
import type { ToolDefinition } from '../../tools/definition.js';
import { importOpenApi, OpenApiDocumentError, parseSelectorList, type OpenApiImport } from './index.js';

const require = createRequire(import.meta.url);
const readJson = (specifier: string) =>
  JSON.parse(readFileSync(require.resolve(specifier), 'utf8')) as Record<string, unknown>;
const byName = (result: OpenApiImport, name: string) =>
  result.tools.find((tool) => tool.name === name) as ToolDefinition;

/** A minimal 3.1 document around the given paths and components. */
function document(paths: Record<string, unknown>, components: Record<string, unknown> = {}): Record<string, unknown> {
  return { openapi: '3.1.0', info: { title: 'hostile', version: '1' }, paths, components };
}

describe("GitHub's REST API (@octokit/openapi, whole)", () => {
  let github: Record<string, unknown>;
  let whole: OpenApiImport;
  beforeAll(() => {
    // Loaded once for the file: 13 MB.
    github = readJson('@octokit/openapi/generated/api.github.com.json');
    whole = importOpenApi(github, { prefix: 'github', allowWrite: parseSelectorList('issues/create') });
  });

  it('imports nearly every operation, and says why for each one left out', () => {
    const operations = Object.values(github.paths as Record<string, Record<string, unknown>>).flatMap((item) =>
      Object.keys(item).filter((key) => key !== 'parameters'),
    );
    expect(operations.length).toBeGreaterThanOrEqual(1223);
    expect(whole.tools.length + whole.skipped.length).toBe(operations.length);
    expect(whole.tools.length).toBeGreaterThan(1200);
    for (const skipped of whole.skipped) expect(skipped.reason).not.toBe('');
  });

  it('actions/update-repo-variable: the body property "name" (the new name) is the input body_name, sent back as "name"', () => {
    // Path `{name}` is the variable's name now, the body's `name` its new one: both must reach GitHub.
    const tool = byName(whole, 'actions_update-repo-variable');
    expect(whole.skipped.find((skipped) => skipped.operationId === 'actions/update-repo-variable')).toBeUndefined();
    expect(tool.parameterSources).toEqual({
      owner: 'route',
      repo: 'route',
      name: 'route',
      body_name: 'body',
      value: 'body',
    });
    expect(tool.bodyNames).toEqual({ body_name: 'name' });
    expect(tool.inputSchema.properties.body_name).toMatchObject({
      type: 'string',
      description: 'The name of the variable. (Sent as "name" in the JSON body.)',
    });
    expect(whole.notes).toContainEqual({
      operation: 'PATCH /repos/{owner}/{repo}/actions/variables/{name}',
      operationId: 'actions/update-repo-variable',
      reason: 'body property "name" is the input "body_name": a route parameter is named "name"',
    });
    expect(
      buildDownstreamRequest(tool, {
        owner: 'octo',
        repo: 'hello',
        name: 'OLD_NAME',
        body_name: 'NEW_NAME',
        value: 'v',
      }),
    ).toEqual({
      method: 'PATCH',
      path: '/repos/octo/hello/actions/variables/OLD_NAME',
      body: '{"name":"NEW_NAME","value":"v"}',
    });
    // All five such GitHub operations are imported: only a body that is not an object is left out now.
    expect(whole.skipped.map((skipped) => skipped.operationId)).toEqual([
      'copilot/set-copilot-content-exclusion-for-organization',
    ]);
  });

  it('names every tool uniquely within 64 characters with its prefix, using only [A-Za-z0-9_-]', () => {
    const names = whole.tools.map((tool) => tool.name);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(`github_${name}`).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    expect(names).toContain('pulls_list');
  });

  it('maps pulls/list: route owner and repo, query state and per_page with enum, type and default', () => {
    const tool = byName(whole, 'pulls_list');
    expect(tool).toMatchObject({
      httpMethod: 'GET',
      routePattern: '/repos/{owner}/{repo}/pulls',
      allowWrite: false,
      category: 'pulls',
    });
    expect(tool.parameterSources).toMatchObject({ owner: 'route', repo: 'route', state: 'query', per_page: 'query' });
    expect(tool.inputSchema.required).toEqual(['owner', 'repo']);
    expect(tool.inputSchema.properties.state).toMatchObject({
      type: 'string',
      enum: ['open', 'closed', 'all'],
      default: 'open',
    });
    expect(tool.inputSchema.properties.per_page).toMatchObject({ type: 'integer', default: 30 });
    expect(tool.description.length).toBeLessThanOrEqual(1000);
  });

  it('allows only the writes selected by AllowWrite', () => {
    expect(byName(whole, 'issues_create')).toMatchObject({ httpMethod: 'POST', allowWrite: true });
    expect(byName(whole, 'issues_create').parameterSources).toMatchObject({
      owner: 'route',
      repo: 'route',
      title: 'body',
      body: 'body',
      labels: 'body',
    });
    expect(byName(whole, 'issues_create').inputSchema.required).toEqual(['owner', 'repo', 'title']);
    const otherWrites = whole.tools.filter((tool) => tool.httpMethod !== 'GET' && tool.name !== 'issues_create');
    expect(otherWrites.length).toBeGreaterThan(400);
    expect(otherWrites.every((tool) => !tool.allowWrite)).toBe(true);
  });

  it('builds a registry whose argument checks compile, and requests GitHub expects', { timeout: 60_000 }, () => {
    const { registry, problems } = buildToolRegistry(whole.tools);
    expect(problems).toEqual([]);
    // Large registries compile on first call: force every one, so none would refuse its calls.
    const uncompilable = registry
      .list()
      .filter(
        (tool) =>
          !tool.validateArguments({}) && tool.validateArguments.errors?.some((error) => error.keyword === 'compile'),
      );
    expect(uncompilable.map((tool) => tool.definition.name)).toEqual([]);
    const pulls = registry.get('pulls_list')!;
    expect(pulls.validateArguments({ owner: 'octo', repo: 'hello', state: 'closed', per_page: 5 })).toBe(true);
    expect(pulls.validateArguments({ owner: 'octo', repo: 'hello', state: 'merged' })).toBe(false);
    expect(
      buildDownstreamRequest(pulls.definition, { owner: 'octo', repo: 'hello', state: 'closed', per_page: 5 }),
    ).toEqual({
      method: 'GET',
      path: '/repos/octo/hello/pulls?state=closed&per_page=5',
    });
  });

  it('keeps path values inside their segment', () => {
    const tool = byName(whole, 'repos_get');
    for (const owner of ['..', 'a/b', '%2e%2e', '%2F', '..%252f'])
      expect(() => buildDownstreamRequest(tool, { owner, repo: 'x' })).toThrow(/Route value owner/);
    expect(buildDownstreamRequest(tool, { owner: 'a b?#', repo: 'x' }).path).toBe('/repos/a%20b%3F%23/x');
  });

  it('selects by tag, operationId and method + path, Exclude winning', () => {
    const pulls = importOpenApi(github, { prefix: 'github', include: parseSelectorList('tag:pulls') });
    expect(pulls.tools.length).toBeGreaterThan(20);
    expect(pulls.tools.every((tool) => tool.category === 'pulls')).toBe(true);
    expect(pulls.excluded).toBe(whole.tools.length + whole.skipped.length - pulls.tools.length - pulls.skipped.length);
    const some = importOpenApi(github, {
      include: parseSelectorList('issues/create, GET /repos/{owner}/{repo}/pulls*'),
      exclude: parseSelectorList('pulls/list-files'),
    });
    const names = some.tools.map((tool) => tool.name);
    expect(names).toContain('issues_create');
    expect(names).toContain('pulls_list');
    expect(names).toContain('pulls_get');
    expect(names).not.toContain('pulls_list-files');
    const others = some.tools.filter((tool) => tool.name !== 'issues_create');
    expect(
      others.filter(
        (tool) => tool.httpMethod !== 'GET' || !tool.routePattern.startsWith('/repos/{owner}/{repo}/pulls'),
      ),
    ).toEqual([]);
  });

  it('gives the same names whatever the order of the operations', () => {
    const paths = Object.entries(github.paths as Record<string, unknown>).reverse();
    const reversed = importOpenApi({ ...github, paths: Object.fromEntries(paths) }, { prefix: 'github' });
    const key = (tool: ToolDefinition) => `${tool.httpMethod} ${tool.routePattern} ${tool.name}`;
    expect(reversed.tools.map(key).sort()).toEqual(whole.tools.map(key).sort());
  });
});

describe('other public documents', () => {
  it('Petstore 3.1: request bodies by $ref, array query inputs, security scopes, and what is skipped', () => {
    const result = importOpenApi(readJson('@readme/oas-examples/3.1/json/petstore.json'), { prefix: 'pets' });
    expect(result.version).toBe('3.1');
    expect(byName(result, 'addPet').parameterSources).toMatchObject({ name: 'body', photoUrls: 'body' });
    expect(byName(result, 'addPet').inputSchema.required).toEqual(expect.arrayContaining(['name', 'photoUrls']));
    expect(byName(result, 'addPet').requiredScopes).toEqual(['write:pets', 'read:pets']);
    expect(byName(result, 'findPetsByStatus').querySerialization).toEqual({ status: { style: 'form', explode: true } });
    expect(buildDownstreamRequest(byName(result, 'findPetsByStatus'), { status: ['available', 'sold'] }).path).toBe(
      '/pet/findByStatus?status=available&status=sold',
    );
    // Array bodies cannot be named inputs; updateUser's body `username` (like its path's) is the input body_username.
    expect(result.skipped.map((skipped) => skipped.operationId)).toEqual([
      'createUsersWithArrayInput',
      'createUsersWithListInput',
    ]);
    expect(byName(result, 'updateUser').bodyNames).toEqual({ body_username: 'username' });
    expect(result.notes).toContainEqual(
      expect.objectContaining({
        operationId: 'updatePetWithForm',
        reason: expect.stringMatching(/optional request body \(application\/x-www-form-urlencoded\) left out/),
      }),
    );
    expect(result.notes).toContainEqual(
      expect.objectContaining({ operationId: 'deletePet', reason: 'optional header parameter "api_key" left out' }),
    );
    expect(buildToolRegistry(result.tools).problems).toEqual([]);
  });

  it('Blockfrost (3.0.3, YAML, 500 KB): nullable and 3.0 keywords become 2020-12', { timeout: 30_000 }, () => {
    const text = readFileSync(require.resolve('@blockfrost/openapi/openapi.yaml'), 'utf8');
    const result = importOpenApi(parseYaml(text), { prefix: 'blockfrost' });
    expect(result.version).toBe('3.0');
    expect(result.tools.length).toBeGreaterThan(100);
    expect(buildToolRegistry(result.tools).problems).toEqual([]);
    const serialized = JSON.stringify(result.tools);
    expect(serialized).not.toContain('"nullable"');
  });

  it('refuses what is neither Swagger 2.0 (swagger2.test.ts) nor OpenAPI 3', () => {
    expect(() => importOpenApi({ swagger: '1.2', paths: {} })).toThrow(OpenApiDocumentError);
    expect(() => importOpenApi({ openapi: '4.0.0', paths: {} })).toThrow(/expected 3.0.x or 3.1.x/);
    expect(() => importOpenApi('openapi: 3.1.0')).toThrow(OpenApiDocumentError);
  });
});

describe('hostile documents', () => {
  const body = (schema: unknown) => ({ requestBody: { required: true, content: { 'application/json': { schema } } } });

  it('$ref cycles become $defs, written once, and the arguments still validate', () => {
    const doc = document(
      { '/tree': { post: { operationId: 'plant', ...body({ $ref: '#/components/schemas/Node' }) } } },
      {
        schemas: {
          Node: {
            type: 'object',
            required: ['label'],
            properties: {
              label: { type: 'string' },
              children: { type: 'array', items: { $ref: '#/components/schemas/Node' } },
              a: { $ref: '#/components/schemas/A' },
            },
          },
          A: { type: 'object', properties: { b: { $ref: '#/components/schemas/B' } } },
          B: { type: 'object', properties: { a: { $ref: '#/components/schemas/A' } } },
        },
      },
    );
    const result = importOpenApi(doc);
    const tool = byName(result, 'plant');
    expect(Object.keys(tool.inputSchema.$defs as object).sort()).toEqual(['A', 'Node']);
    const { registry, problems } = buildToolRegistry(result.tools);
    expect(problems).toEqual([]);
    const validate = registry.get('plant')!.validateArguments;
    expect(validate({ label: 'root', children: [{ label: 'leaf', children: [] }] })).toBe(true);
    expect(validate({ label: 'root', children: [{ children: [] }] })).toBe(false);
  });

  it('a $ref to itself, or one that leads nowhere, costs only its operation', () => {
    const doc = document(
      {
        '/self': { post: { operationId: 'self', ...body({ $ref: '#/components/schemas/Self' }) } },
        '/nowhere': { post: { operationId: 'nowhere', ...body({ $ref: '#/components/schemas/Missing' }) } },
        '/fine': { get: { operationId: 'fine' } },
      },
      { schemas: { Self: { $ref: '#/components/schemas/Self' } } },
    );
    const result = importOpenApi(doc);
    expect(result.tools.map((tool) => tool.name)).toEqual(['fine']);
    expect(result.skipped.find((skipped) => skipped.operationId === 'nowhere')?.reason).toMatch(/leads nowhere/);
    expect(result.skipped.find((skipped) => skipped.operationId === 'self')).toBeDefined();
  });

  it('1,000 levels of nesting: refused for its operation, no stack overflow', () => {
    let schema: Record<string, unknown> = { type: 'string' };
    for (let level = 0; level < 1000; level++) schema = { type: 'object', properties: { deeper: schema } };
    const result = importOpenApi(
      document({ '/deep': { post: { operationId: 'deep', ...body(schema) } }, '/ok': { get: { operationId: 'ok' } } }),
    );
    expect(result.tools.map((tool) => tool.name)).toEqual(['ok']);
    expect(result.skipped[0]?.reason).toMatch(/nest deeper than 64 levels/);
  });

  it('schemas that would grow exponentially when inlined are refused per operation, without building them', () => {
    const schemas: Record<string, unknown> = { L0: { type: 'string', description: 'x'.repeat(200) } };
    for (let level = 1; level <= 30; level++) {
      schemas[`L${level}`] = {
        type: 'object',
        properties: {
          left: { $ref: `#/components/schemas/L${level - 1}` },
          right: { $ref: `#/components/schemas/L${level - 1}` },
        },
      };
    }
    const started = process.cpuUsage();
    const result = importOpenApi(
      document(
        { '/bomb': { post: { operationId: 'bomb', ...body({ $ref: '#/components/schemas/L30' }) } } },
        { schemas },
      ),
    );
    const cpuMs = (process.cpuUsage(started).user + process.cpuUsage(started).system) / 1000;
    expect(result.tools).toEqual([]);
    expect(result.skipped[0]?.reason).toMatch(/over 256 KiB once its \$refs are resolved/);
    // 2^30 leaves if built: refused after about 256 KiB of output instead.
    expect(cpuMs).toBeLessThan(5_000);
  });

  it('duplicate operationIds get distinct names, the same whatever the order, and are reported', () => {
    const paths = {
      '/a': { get: { operationId: 'list' } },
      '/b': { get: { operationId: 'list' } },
      '/c': { post: { operationId: 'list' } },
    };
    const forward = importOpenApi(document(paths));
    const backward = importOpenApi(document(Object.fromEntries(Object.entries(paths).reverse())));
    const names = (result: OpenApiImport) =>
      Object.fromEntries(result.tools.map((tool) => [tool.routePattern, tool.name]));
    expect(names(forward)).toEqual(names(backward));
    expect(names(forward)['/a']).toBe('list');
    expect(new Set(Object.values(names(forward))).size).toBe(3);
    expect(forward.notes.filter((note) => /another operation wants the name list/.test(note.reason))).toHaveLength(2);
  });

  it('200-character operationIds are shortened to fit 64 with the prefix, deterministically and apart', () => {
    const long = 'get-the-thing-'.repeat(15);
    const result = importOpenApi(
      document({
        '/x': { get: { operationId: `${long}one` } },
        '/y': { get: { operationId: `${long}two` } },
        '/z/{id}': { get: {} },
      }),
      { prefix: 'somewhat_long_prefix' },
    );
    const names = result.tools.map((tool) => tool.name);
    for (const name of names) expect(`somewhat_long_prefix_${name}`.length).toBeLessThanOrEqual(64);
    expect(names).toHaveLength(2);
    expect(names[0]).not.toBe(names[1]);
    expect(
      importOpenApi(document({ '/x': { get: { operationId: `${long}one` } } }), { prefix: 'somewhat_long_prefix' })
        .tools[0]?.name,
    ).toBe(names[0]);
    // Without an operationId: named from method and path (and refused: {id} is not declared).
    expect(result.skipped[0]).toMatchObject({
      operation: 'GET /z/{id}',
      reason: expect.stringMatching(/declares no path parameter/),
    });
  });

  it('a servers entry pointing elsewhere changes nothing: the route is the path, BaseUrl decides', () => {
    const doc = {
      ...document({ '/items': { get: { operationId: 'items' } } }),
      servers: [{ url: 'https://attacker.example/steal' }],
    };
    const tool = importOpenApi(doc).tools[0]!;
    expect(tool.routePattern).toBe('/items');
    expect(buildDownstreamRequest(tool, {}, '/api')).toEqual({ method: 'GET', path: '/api/items' });
  });

  it('required header parameters, required non-JSON bodies and unsafe methods not allowed: skipped or refused as host-kit tools', () => {
    const result = importOpenApi(
      document({
        '/h': {
          get: {
            operationId: 'needsHeader',
            parameters: [{ name: 'X-Key', in: 'header', required: true, schema: { type: 'string' } }],
          },
        },
        '/up': {
          post: {
            operationId: 'upload',
            requestBody: { required: true, content: { 'multipart/form-data': { schema: { type: 'object' } } } },
          },
        },
        '/w': { delete: { operationId: 'wipe', callbacks: { done: {} } }, head: { operationId: 'peek' } },
      }),
    );
    expect(result.skipped.map((skipped) => [skipped.operationId, skipped.reason])).toEqual([
      ['needsHeader', expect.stringMatching(/required header parameter "X-Key"/)],
      ['upload', 'its request body is multipart/form-data, not JSON'],
      ['peek', expect.stringMatching(/sends GET, POST, PUT, PATCH, DELETE only/)],
    ]);
    expect(byName(result, 'wipe').allowWrite).toBe(false);
    expect(result.notes).toContainEqual(
      expect.objectContaining({ operationId: 'wipe', reason: expect.stringMatching(/callbacks not imported/) }),
    );
  });

  it('a pattern that is no valid Unicode JS regex is dropped rather than refusing every call', () => {
    const result = importOpenApi(
      document({
        '/p/{slug}': {
          get: {
            operationId: 'p',
            parameters: [
              {
                name: 'slug',
                in: 'path',
                required: true,
                schema: { type: 'string', pattern: '^\\-?\\d+$', maxLength: 9 },
              },
            ],
          },
        },
      }),
    );
    expect(result.tools[0]!.inputSchema.properties.slug).toEqual({ type: 'string', maxLength: 9 });
  });

  it('query arrays and objects carry their style and explode into the request', () => {
    const parameter = (name: string, schema: unknown, extra: Record<string, unknown> = {}) => ({
      name,
      in: 'query',
      schema,
      ...extra,
    });
    const array = { type: 'array', items: { type: 'string' } };
    const object = { type: 'object', properties: { a: { type: 'string' }, b: { type: 'integer' } } };
    const result = importOpenApi(
      document({
        '/q': {
          get: {
            operationId: 'q',
            parameters: [
              parameter('csv', array, { explode: false }),
              parameter('pipes', array, { style: 'pipeDelimited', explode: false }),
              parameter('spaced', array, { style: 'spaceDelimited', explode: false }),
              parameter('deep', object, { style: 'deepObject' }),
              parameter('flat', object),
              parameter('pairs', object, { explode: false }),
            ],
          },
        },
      }),
    );
    const tool = result.tools[0]!;
    const { path } = buildDownstreamRequest(tool, {
      csv: ['a', 'b'],
      pipes: ['c', 'd'],
      spaced: ['e', 'f'],
      deep: { a: 'x', b: 1 },
      flat: { a: 'y', b: 2 },
      pairs: { a: 'z', b: 3 },
    });
    expect(decodeURIComponent(path.replace(/\+/g, ' '))).toBe(
      '/q?csv=a,b&pipes=c|d&spaced=e f&deep[a]=x&deep[b]=1&a=y&b=2&pairs=a,z,b,3',
    );
  });
});
