import type { EmbeddingModel } from './port.js';

/**
 * One component of the readiness report (contract 2.6). `Degraded`:
 * serving, in part (the store: a master of a cluster is away).
 */
export type ComponentHealth = { status: 'Healthy' } | { status: 'Degraded' | 'Unhealthy'; description: string };

const TEST_SENTENCE = 'Tollgate readiness check.';

/** Healthy once a test sentence embeds to a non-empty vector of finite numbers within the timeout. */
export async function checkEmbeddingModel(model: EmbeddingModel, timeoutMs = 5_000): Promise<ComponentHealth> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no embedding within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    const [vector] = await Promise.race([model.embed([TEST_SENTENCE]), timeout]);
    if (!vector || vector.length === 0 || !vector.every(Number.isFinite)) {
      return { status: 'Unhealthy', description: `${model.name} returned no usable vector` };
    }
    return { status: 'Healthy' };
  } catch (error) {
    return {
      status: 'Unhealthy',
      description: `${model.name}: ${error instanceof Error ? error.message : String(error)}`,
    };
  } finally {
    clearTimeout(timer);
  }
}
