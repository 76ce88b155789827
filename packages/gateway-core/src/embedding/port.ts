/** Turns texts into vectors; the semantic cache compares them by cosine similarity. */
export interface EmbeddingModel {
  /** Identifies the model in logs and cache keys (vectors of different models never mix). */
  readonly name: string;
  /** One vector per text, in the order given. */
  embed(texts: string[]): Promise<number[][]>;
  /** Releases what the model holds (the local model's worker thread); later calls reject. */
  close?(): Promise<void>;
}

export class EmbeddingModelError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'EmbeddingModelError';
  }
}

export function cosineSimilarity(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) throw new RangeError(`vectors differ in length: ${a.length} vs ${b.length}`);
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    dot += x * y;
    normA += x * x;
    normB += y * y;
  }
  return normA === 0 || normB === 0 ? 0 : dot / Math.sqrt(normA * normB);
}
