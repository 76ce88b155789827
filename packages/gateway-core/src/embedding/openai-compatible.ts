import { EmbeddingModelError, type EmbeddingModel } from './port.js';

export interface OpenAiEmbeddingOptions {
  /** e.g. `https://api.openai.com/v1`; the client posts to `{baseUrl}/embeddings`. */
  baseUrl: string;
  model: string;
  apiKey?: string;
  /** Default 10 s. */
  timeoutMs?: number;
}

interface EmbeddingsResponse {
  data: Array<{ index: number; embedding: number[] }>;
}

/** Any server speaking the OpenAI embeddings API (OpenAI, Azure OpenAI, Ollama, vLLM, LiteLLM…). */
export function createOpenAiEmbeddingModel(options: OpenAiEmbeddingOptions): EmbeddingModel {
  const endpoint = `${options.baseUrl.replace(/\/+$/, '')}/embeddings`;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;

  return {
    name: `openai-compatible:${options.model}`,
    async embed(texts) {
      if (texts.length === 0) return [];
      const response = await post(endpoint, headers, { model: options.model, input: texts }, timeoutMs);
      return vectorsFrom(await response.json().catch(() => null), texts.length);
    },
  };
}

async function post(
  endpoint: string,
  headers: Record<string, string>,
  body: unknown,
  timeoutMs: number,
): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(endpoint, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    const reason =
      error instanceof Error && error.name === 'TimeoutError'
        ? `no answer within ${timeoutMs} ms`
        : String((error as Error).message);
    throw new EmbeddingModelError(`embeddings endpoint ${endpoint} unreachable: ${reason}`, { cause: error });
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new EmbeddingModelError(`embeddings endpoint ${endpoint} answered ${response.status}`);
  }
  return response;
}

/** Vectors in input order; the API may return them in any order, tagged by index. */
function vectorsFrom(json: unknown, expected: number): number[][] {
  const data = (json as EmbeddingsResponse | null)?.data;
  const valid =
    Array.isArray(data) &&
    data.length === expected &&
    data.every(
      (item) => Number.isInteger(item?.index) && Array.isArray(item.embedding) && item.embedding.every(Number.isFinite),
    );
  if (!valid) throw new EmbeddingModelError('embeddings endpoint returned an unexpected body');
  // Each index 0..expected-1 exactly once (the length is already checked).
  const vectors = Array.from({ length: expected }, (_, index) => data.find((item) => item.index === index)?.embedding);
  if (vectors.includes(undefined))
    throw new EmbeddingModelError('embeddings endpoint returned missing or duplicate indexes');
  return vectors as number[][];
}
