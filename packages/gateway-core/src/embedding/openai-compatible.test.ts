import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { checkEmbeddingModel } from './check.js';
import { createOpenAiEmbeddingModel } from './openai-compatible.js';
import { cosineSimilarity, EmbeddingModelError } from './port.js';

type Handler = (request: IncomingMessage, body: string, response: ServerResponse) => void;

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

async function serve(handler: Handler): Promise<string> {
  const server = createServer(async (request, response) => {
    let body = '';
    for await (const chunk of request) body += chunk;
    handler(request, body, response);
  });
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/`;
}

function json(response: ServerResponse, status: number, value: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
}

describe('OpenAI-compatible embeddings client', () => {
  it('posts the texts with model and key, and returns vectors in input order', async () => {
    const seen: Array<{ url?: string; auth?: string; body: unknown }> = [];
    const baseUrl = await serve((request, body, response) => {
      seen.push({ url: request.url, auth: request.headers.authorization, body: JSON.parse(body) });
      // Out of order on purpose: the client must sort by index.
      json(response, 200, {
        data: [
          { index: 1, embedding: [0, 1] },
          { index: 0, embedding: [1, 0] },
        ],
        model: 'm',
      });
    });
    const model = createOpenAiEmbeddingModel({ baseUrl, model: 'text-embedding-3-small', apiKey: 'sk-test' });

    expect(await model.embed(['a', 'b'])).toEqual([
      [1, 0],
      [0, 1],
    ]);
    expect(seen).toEqual([
      { url: '/v1/embeddings', auth: 'Bearer sk-test', body: { model: 'text-embedding-3-small', input: ['a', 'b'] } },
    ]);
    expect(model.name).toBe('openai-compatible:text-embedding-3-small');
  });

  it('fails with the status, never the key, on an error answer', async () => {
    const baseUrl = await serve((_, __, response) => json(response, 401, { error: { message: 'bad key' } }));
    const attempt = createOpenAiEmbeddingModel({ baseUrl, model: 'm', apiKey: 'sk-secret' }).embed(['a']);
    await expect(attempt).rejects.toBeInstanceOf(EmbeddingModelError);
    await expect(attempt).rejects.toThrow(/answered 401/);
    await expect(attempt).rejects.not.toThrow(/sk-secret/);
  });

  it.each([
    ['not JSON', 'hello'],
    ['no data', '{}'],
    ['too few vectors', JSON.stringify({ data: [{ index: 0, embedding: [1] }] })],
    [
      'a non-numeric vector',
      JSON.stringify({
        data: [
          { index: 0, embedding: ['x'] },
          { index: 1, embedding: [1] },
        ],
      }),
    ],
    [
      'duplicate indexes',
      JSON.stringify({
        data: [
          { index: 0, embedding: [1] },
          { index: 0, embedding: [1] },
        ],
      }),
    ],
    [
      'an index out of range',
      JSON.stringify({
        data: [
          { index: 0, embedding: [1] },
          { index: 2, embedding: [1] },
        ],
      }),
    ],
  ])('rejects a body with %s', async (_, body) => {
    const baseUrl = await serve((_, __, response) => response.writeHead(200).end(body));
    await expect(createOpenAiEmbeddingModel({ baseUrl, model: 'm' }).embed(['a', 'b'])).rejects.toBeInstanceOf(
      EmbeddingModelError,
    );
  });

  it('gives up after the timeout', async () => {
    const baseUrl = await serve(() => {}); // never answers
    const started = Date.now();
    await expect(createOpenAiEmbeddingModel({ baseUrl, model: 'm', timeoutMs: 200 }).embed(['a'])).rejects.toThrow(
      /no answer within 200 ms/,
    );
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('is reported healthy or unhealthy by the readiness check', async () => {
    const baseUrl = await serve((_, __, response) =>
      json(response, 200, { data: [{ index: 0, embedding: [0.5, 0.5] }] }),
    );
    expect(await checkEmbeddingModel(createOpenAiEmbeddingModel({ baseUrl, model: 'm' }))).toEqual({
      status: 'Healthy',
    });

    const down = createOpenAiEmbeddingModel({ baseUrl: 'http://127.0.0.1:1/v1', model: 'm' });
    const health = await checkEmbeddingModel(down);
    expect(health.status).toBe('Unhealthy');
    expect(health).toMatchObject({ description: expect.stringMatching(/^openai-compatible:m: .*unreachable/) });
  });
});

describe('cosineSimilarity', () => {
  it('is 1 for the same direction, 0 for orthogonal, -1 for opposite', () => {
    expect(cosineSimilarity([1, 2], [2, 4])).toBeCloseTo(1);
    expect(cosineSimilarity([1, 0], [0, 3])).toBe(0);
    expect(cosineSimilarity([1, 1], [-1, -1])).toBeCloseTo(-1);
    expect(() => cosineSimilarity([1], [1, 2])).toThrow(RangeError);
  });
});
