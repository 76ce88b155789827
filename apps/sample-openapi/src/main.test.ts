import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { buildToolRegistry, importOpenApi, parseSelectorList } from '@tollgate/gateway-core';
// @ts-expect-error: plain JavaScript, no types
import { createNotesServer } from './main.mjs';

/** The sample's own document, imported as the gateway does, and each tool's request answered by the sample. */
describe('the sample OpenAPI API', () => {
  const server = createNotesServer();
  let base = '';
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => server.close());

  const imported = importOpenApi(parse(readFileSync(new URL('./openapi.yaml', import.meta.url), 'utf8')), {
    prefix: 'notes',
    allowWrite: parseSelectorList('createNote'),
  });
  const send = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${base}${path}`, {
      method,
      body: body === undefined ? undefined : JSON.stringify(body),
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
    });
    return { status: response.status, body: response.status === 204 ? null : await response.json() };
  };

  it('imports all four operations as tools, writes allowed only where AllowWrite says', () => {
    expect(imported.skipped).toEqual([]);
    expect(imported.tools.map((t) => [t.name, t.httpMethod, t.allowWrite])).toEqual([
      ['listNotes', 'GET', false],
      ['createNote', 'POST', true],
      ['getNote', 'GET', false],
      ['deleteNote', 'DELETE', false],
    ]);
    expect(buildToolRegistry(imported.tools).problems).toEqual([]);
  });

  it('answers requests of the form the gateway builds from the document (query arrays repeated, JSON body)', async () => {
    const created = await send('POST', '/notes', { title: 'Buy milk', tags: ['home', 'shop'] });
    expect(created).toMatchObject({ status: 201, body: { id: 'n2', title: 'Buy milk' } });
    expect((await send('GET', '/notes?tag=home&tag=shop')).body.map((note: { id: string }) => note.id)).toEqual(['n2']);
    expect((await send('GET', '/notes/n1')).body).toMatchObject({ title: 'Welcome' });
    expect((await send('DELETE', '/notes/n2')).status).toBe(204);
    expect((await fetch(`${base}/openapi.yaml`)).headers.get('content-type')).toBe('application/yaml');
  });
});
