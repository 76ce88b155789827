import MiniSearch from 'minisearch';
import { cosineSimilarity, type EmbeddingModel } from '../../embedding/port.js';
import type { RegisteredTool } from '../../tools/registry.js';
import { methodServes, queryIntent } from './query-intent.js';
import { withoutNegatedPhrases } from './query-negation.js';
import { indexTerms, words } from './terms.js';
import { DOCUMENT_FIELDS, documentFingerprint, toolDocument, type ToolDocument } from './tool-document.js';

/** One tool found, best first. */
export interface FoundTool {
  tool: RegisteredTool;
  score: number;
}

export interface ToolSearchOptions {
  limit: number;
  /**
   * Only tools this accepts are ranked: the caller's access rule,
   * applied before the cut so a refused tool never takes a place.
   */
  accept?: (tool: RegisteredTool) => boolean;
}

export interface ToolSearchIndexOptions {
  /**
   * When given, each tool's summary is embedded (in the background, after
   * `sync`) and a query's similarity to it is mixed into the lexical score
   * with `semanticWeight`. Until the vectors are ready, and for a query the
   * model refuses, the ranking is lexical alone.
   */
  embedding?: EmbeddingModel;
  /** Share of the score from the embedding, 0..1 (see the evaluation in docs/guide/search-mode.md). */
  semanticWeight?: number;
  /** Field boosts of the lexical ranking. */
  boosts?: Partial<Record<(typeof DOCUMENT_FIELDS)[number], number>>;
  /** BM25+ parameters (minisearch's defaults: k 1.2, b 0.7, d 0.5). */
  bm25?: { k: number; b: number; d: number };
  /**
   * Query words of at least this many letters also match longer
   * words they begin. Default `DEFAULT_PREFIX_LENGTH` (4); 0: never.
   */
  prefixLength?: number;
  /** Score multiplier for a tool whose HTTP method does what the query's leading verb asks (1: method ignored). */
  intentBoost?: number;
  /** false: words a query negates ("without a pull request") are matched like the others. Default true. */
  dropNegated?: boolean;
}

/**
 * Chosen on the labelled set (catalog/search/eval, docs/guide/search-mode.md):
 * the summary says what a tool does; names repeat words of every sibling
 * (`…-for-repo`), and parameters mostly `owner`, `repo`, `per_page`.
 *
 * Summary 4 (5 before): with prefix matching and negated phrases dropped,
 * chosen on the tune split (recall@5 0.978 → 0.986, recall@1 0.855 → 0.862;
 * 3 did the same, 2 worse); the held-out third and the fresh questions
 * did not move (0.913 / 0.950).
 */
export const DEFAULT_BOOSTS: Readonly<Record<(typeof DOCUMENT_FIELDS)[number], number>> = {
  name: 2,
  summary: 4,
  description: 0.3,
  parameters: 0.1,
  tags: 1,
};

/**
 * Also measured there: stronger length normalisation (b 0.9) and no BM25+
 * floor (d 0), so a word found once in a long description does not lift a
 * tool above one whose short summary says it; recall@1 0.68 → 0.74.
 */
export const DEFAULT_BM25 = { k: 2, b: 0.9, d: 0 } as const;

export const DEFAULT_INTENT_BOOST = 1.2;

/**
 * A query word of four letters or more also matches the longer words it
 * begins, at minisearch's reduced weight for a prefix match: the verb a
 * question uses meets the noun a summary uses, which Porter's stemmer keeps
 * apart (`react` and `reaction`, `assign` and `assignees`, `install` and
 * `installation`). Measured (issue 28): recall@5 on the held-out third
 * 0.870 → 0.899, on the fresh questions 0.933 → 0.950 (the tune split did
 * not move). 5 and 6 letters did less on the held-out third; 3 did as well
 * as 4 there, but a three-letter stem begins too many unrelated words
 * (`rep`: `repository`, `report`, `replace`).
 */
export const DEFAULT_PREFIX_LENGTH = 4;

/**
 * The tools of the registry, searchable by what a model would ask for.
 * Lexical (BM25+, minisearch) over name, summary, description, parameters,
 * tags and path; `sync` brings it to a new registry by adding and removing
 * only the tools whose text changed, so a downstream's reload costs what it
 * changed.
 */
export class ToolSearchIndex {
  readonly #lexical: MiniSearch<ToolDocument>;
  readonly #fingerprints = new Map<string, string>();
  readonly #tools = new Map<string, RegisteredTool>();
  readonly #vectors = new Map<string, { fingerprint: string; vector: number[] }>();
  readonly #embedding: EmbeddingModel | undefined;
  readonly #semanticWeight: number;
  readonly #boosts: Record<string, number>;
  readonly #prefixLength: number;
  readonly #bm25: { k: number; b: number; d: number };
  readonly #intentBoost: number;
  readonly #dropNegated: boolean;
  #embeddingRun: Promise<void> = Promise.resolve();

  constructor(options: ToolSearchIndexOptions = {}) {
    this.#embedding = options.embedding;
    this.#semanticWeight = options.semanticWeight ?? 0;
    this.#boosts = { ...DEFAULT_BOOSTS, ...options.boosts };
    this.#prefixLength = options.prefixLength ?? DEFAULT_PREFIX_LENGTH;
    this.#bm25 = options.bm25 ?? DEFAULT_BM25;
    this.#intentBoost = options.intentBoost ?? DEFAULT_INTENT_BOOST;
    this.#dropNegated = options.dropNegated ?? true;
    this.#lexical = new MiniSearch<ToolDocument>({
      fields: [...DOCUMENT_FIELDS],
      idField: 'id',
      tokenize: words,
      processTerm: (term) => indexTerms(term),
    });
  }

  get size(): number {
    return this.#tools.size;
  }

  /** Brings the index to these tools: adds new ones, replaces changed ones, removes the rest. */
  sync(tools: readonly RegisteredTool[]): { added: number; removed: number } {
    const seen = new Set<string>();
    let added = 0;
    let removed = 0;
    for (const tool of tools) {
      const document = toolDocument(tool);
      const fingerprint = documentFingerprint(document);
      seen.add(document.id);
      this.#tools.set(document.id, tool);
      if (this.#fingerprints.get(document.id) === fingerprint) continue;
      if (this.#fingerprints.has(document.id)) {
        this.#lexical.discard(document.id);
        removed++;
      }
      this.#lexical.add(document);
      this.#fingerprints.set(document.id, fingerprint);
      added++;
    }
    for (const id of [...this.#fingerprints.keys()]) {
      if (seen.has(id)) continue;
      this.#lexical.discard(id);
      this.#fingerprints.delete(id);
      this.#tools.delete(id);
      this.#vectors.delete(id);
      removed++;
    }
    if (this.#embedding && this.#semanticWeight > 0)
      this.#embeddingRun = this.#embeddingRun.then(() => this.#embedMissing());
    return { added, removed };
  }

  /** Resolves once every tool synced so far has its vector (or the model refused it). */
  vectorsReady(): Promise<void> {
    return this.#embeddingRun;
  }

  /** Lexical ranking alone: synchronous, what the dashboard and the semantic-less gateway use. */
  searchLexical(query: string, options: ToolSearchOptions): FoundTool[] {
    return this.#lexicalCandidates(query, options.accept).slice(0, options.limit);
  }

  /** The ranking: lexical, mixed with the embedding's similarity when vectors are ready. */
  async search(query: string, options: ToolSearchOptions): Promise<FoundTool[]> {
    const lexical = this.#lexicalCandidates(query, options.accept);
    const queryVector = await this.#queryVector(query);
    if (queryVector === null) return lexical.slice(0, options.limit);
    return this.#mixed(lexical, queryVector, options).slice(0, options.limit);
  }

  #lexicalCandidates(query: string, accept: ToolSearchOptions['accept']): FoundTool[] {
    const matched = this.#dropNegated ? withoutNegatedPhrases(query) : query;
    const results = this.#lexical.search(matched === '' ? query : matched, {
      boost: this.#boosts,
      combineWith: 'OR',
      bm25: this.#bm25,
      prefix: (term) => this.#prefixLength > 0 && term.length >= this.#prefixLength,
    });
    const intent = this.#intentBoost === 1 ? null : queryIntent(query);
    const found: FoundTool[] = [];
    for (const result of results) {
      const tool = this.#tools.get(result.id as string);
      if (tool === undefined || (accept !== undefined && !accept(tool))) continue;
      const served = intent !== null && methodServes(intent, tool.definition.httpMethod);
      found.push({ tool, score: served ? result.score * this.#intentBoost : result.score });
    }
    return intent === null ? found : found.sort((a, b) => b.score - a.score);
  }

  /**
   * Lexical scores scaled to the best one, plus the weighted cosine
   * similarity; tools without words in common still rank by meaning.
   */
  #mixed(lexical: FoundTool[], queryVector: number[], options: ToolSearchOptions): FoundTool[] {
    const best = lexical[0]?.score ?? 1;
    const lexicalScore = new Map(lexical.map((found) => [found.tool.definition.name, found.score / best]));
    const weight = this.#semanticWeight;
    const scored: FoundTool[] = [];
    for (const [name, tool] of this.#tools) {
      if (options.accept !== undefined && !options.accept(tool)) continue;
      const vector = this.#vectors.get(name)?.vector;
      const similarity = vector === undefined ? 0 : cosineSimilarity(queryVector, vector);
      const score = (1 - weight) * (lexicalScore.get(name) ?? 0) + weight * similarity;
      scored.push({ tool, score });
    }
    return scored.sort((a, b) => b.score - a.score);
  }

  async #queryVector(query: string): Promise<number[] | null> {
    if (!this.#embedding || this.#semanticWeight <= 0 || this.#vectors.size === 0) return null;
    try {
      const [vector] = await this.#embedding.embed([query]);
      return vector ?? null;
    } catch {
      // A query the model refuses (too long) or a model gone: the lexical ranking still answers.
      return null;
    }
  }

  async #embedMissing(): Promise<void> {
    const missing = [...this.#fingerprints].filter(
      ([id, fingerprint]) => this.#vectors.get(id)?.fingerprint !== fingerprint,
    );
    if (missing.length === 0 || !this.#embedding) return;
    const texts = missing.map(([id]) => embeddingText(this.#tools.get(id)!));
    try {
      const vectors = await this.#embedding.embed(texts);
      missing.forEach(([id, fingerprint], index) => this.#vectors.set(id, { fingerprint, vector: vectors[index]! }));
    } catch {
      // Without vectors the ranking stays lexical; the next sync tries again.
    }
  }
}

/**
 * What the model embeds of a tool: its summary, the part a question
 * paraphrases (longer texts cost the local model quadratic time).
 */
function embeddingText(tool: RegisteredTool): string {
  const document = toolDocument(tool);
  return `${document.summary} ${words(document.tags).join(' ')}`.slice(0, 300);
}
