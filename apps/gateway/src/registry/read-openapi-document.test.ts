import { mkdtempSync, writeFileSync, openSync, writeSync, closeSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSelectorList } from '@tollgate/gateway-core';
import { SchemaUnusableError } from './fetch-tool-schema.js';
import { readDownstreamTools } from './read-downstream-tools.js';
import { MAX_OPENAPI_DOCUMENT_BYTES, readOpenApiDocument } from './read-openapi-document.js';

const dir = mkdtempSync(join(tmpdir(), 'openapi-read-'));
const write = (name: string, text: string) => {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
};
const source = (location: string, allowWrite = '') => ({
  name: 'api',
  baseUrl: 'http://127.0.0.1:1',
  prefix: 'api',
  openApi: { location, include: [], exclude: [], allowWrite: parseSelectorList(allowWrite) },
});

async function refusal(run: () => Promise<unknown>): Promise<string> {
  try {
    await run();
  } catch (error) {
    expect(error).toBeInstanceOf(SchemaUnusableError);
    return (error as Error).message;
  }
  throw new Error('expected the document to be refused');
}

describe('reading an OpenAPI document from a file', () => {
  it('reads YAML with external $refs (relative files, a cycle through one), each part brought in once', async () => {
    write(
      'params.yaml',
      'id:\n  name: id\n  in: path\n  required: true\n  schema: { type: string, description: the id }\n',
    );
    write(
      'thing.json',
      JSON.stringify({
        type: 'object',
        required: ['label'],
        properties: { label: { type: 'string' }, next: { $ref: '#' } },
      }),
    );
    const file = write(
      'api.yaml',
      `openapi: 3.0.3
info: { title: ext, version: '1' }
paths:
  /things/{id}:
    put:
      operationId: putThing
      parameters: [{ $ref: './params.yaml#/id' }]
      requestBody: { required: true, content: { application/json: { schema: { $ref: './thing.json' } } } }
      responses: { '200': { description: ok } }
`,
    );
    const read = await readDownstreamTools(source(file, 'putThing'), {});
    expect(read).not.toBe('unchanged');
    const [tool] = (read as { schema: Array<Record<string, any>> }).schema;
    expect(tool).toMatchObject({
      name: 'putThing',
      allowWrite: true,
      parameterSources: { id: 'route', label: 'body', next: 'body' },
    });
    expect(tool!.inputSchema.properties.id).toEqual({ type: 'string', description: 'the id' });
    // The cycle is inlined once, then points into $defs.
    expect(tool!.inputSchema.properties.next.properties.next).toEqual({ $ref: '#/$defs/schema' });
    expect(tool!.inputSchema.$defs.schema.properties.label).toEqual({ type: 'string' });
  });

  it('answers unchanged, without parsing, for the text it read last', async () => {
    const file = write(
      'same.json',
      JSON.stringify({
        openapi: '3.1.0',
        info: { title: 't', version: '1' },
        paths: { '/a': { get: { operationId: 'a' } } },
      }),
    );
    const first = await readOpenApiDocument(file);
    expect('digest' in first && first.digest).toMatch(/^[0-9a-f]{64}$/);
    expect(await readOpenApiDocument(file, { lastDigest: (first as { digest: string }).digest })).toEqual({
      unchanged: true,
    });
  });

  it('refuses a 50 MB document before parsing it, saying the bound', async () => {
    const file = join(dir, 'huge.json');
    const fd = openSync(file, 'w');
    const chunk = Buffer.alloc(1024 * 1024, ' ');
    writeSync(fd, '{"openapi":"3.1.0","paths":{}');
    for (let mb = 0; mb < 50; mb++) writeSync(fd, chunk);
    writeSync(fd, '}');
    closeSync(fd);
    expect(await refusal(() => readOpenApiDocument(file))).toMatch(
      /is 50\.0 MiB, over the 32\.0 MiB the gateway reads/,
    );
  });

  it('refuses Swagger 1.2, text that is neither JSON nor YAML, and a missing file, each saying why', async () => {
    expect(
      await refusal(() =>
        readDownstreamTools(source(write('old.json', JSON.stringify({ swagger: '1.2', apis: [] }))), {}),
      ),
    ).toMatch(/Swagger 1\.2 document.*convert it to OpenAPI 3 first/);
    expect(await refusal(() => readOpenApiDocument(write('bad.yaml', 'openapi: [unclosed')))).toMatch(/not valid YAML/);
    expect(await refusal(() => readOpenApiDocument(join(dir, 'missing.yaml')))).toBe(
      "the OpenAPI document's file cannot be read (ENOENT)",
    );
  });
});

describe('reading an OpenAPI document from a URL', () => {
  let server: Server;
  let base = '';
  let status = 200;
  let body = '';
  beforeAll(async () => {
    server = createServer((_request, response) =>
      response.writeHead(status, { 'content-type': 'application/json' }).end(body),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => server.close());

  it('reads it, refuses a 4xx at once, and leaves a 5xx to be retried', async () => {
    body = JSON.stringify({ openapi: '3.1.0', info: { title: 't', version: '1' }, paths: {} });
    expect(await readOpenApiDocument(`${base}/openapi.json`)).toMatchObject({ document: { openapi: '3.1.0' } });
    status = 404;
    expect(await refusal(() => readOpenApiDocument(`${base}/openapi.json`))).toBe(
      "the OpenAPI document's address answered 404",
    );
    status = 503;
    await expect(readOpenApiDocument(`${base}/openapi.json`)).rejects.not.toBeInstanceOf(SchemaUnusableError);
  });

  it('cuts a download off at the bound', async () => {
    status = 200;
    body = ' '.repeat(2048);
    expect(await refusal(() => readOpenApiDocument(`${base}/openapi.json`, { maxBytes: 1024 }))).toMatch(
      /over the 0\.0 MiB|is 0\.0 MiB/,
    );
    expect(MAX_OPENAPI_DOCUMENT_BYTES).toBe(32 * 1024 * 1024);
  });
});
