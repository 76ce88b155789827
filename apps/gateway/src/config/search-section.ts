import { DEFAULT_SEARCH_THRESHOLD } from '@tollgate/gateway-core/internal';
import { z } from 'zod';
import { declareKeys } from './declare.js';
import { httpUrl, oneOf, optionalText, positiveInt } from './fields.js';

/** The model the `openai` provider asks when `Gw:Embedding:Model` is unset. */
export const DEFAULT_EMBEDDING_MODEL = 'text-embedding-3-small';

/** `Gw:Embedding:*`: the embedding model of the semantic cache and of search mode's semantic ranking. */
export const EMBEDDING_KEYS = declareKeys({
  provider: {
    name: 'Gw:Embedding:Provider',
    field: oneOf(['local', 'openai'], 'local'),
    description:
      '`local` (Universal Sentence Encoder lite, offline, in a worker thread of the gateway process with a ' +
      'capped heap) or `openai` (any OpenAI-compatible `/embeddings` endpoint).',
  },
  baseUrl: {
    name: 'Gw:Embedding:BaseUrl',
    field: httpUrl,
    defaultIs: '— (required for `openai`)',
    description: "For `openai`: the endpoint's base URL.",
  },
  model: {
    name: 'Gw:Embedding:Model',
    field: optionalText,
    defaultIs: DEFAULT_EMBEDDING_MODEL,
    description: 'For `openai`: the model asked.',
  },
  apiKey: {
    name: 'Gw:Embedding:ApiKey',
    field: optionalText,
    defaultIs: '—',
    description: 'For `openai`: its API key.',
  },
});

/**
 * `Gw:Catalog:Search*`: search mode (search_tools and call_tool instead of the whole catalog), per agent overridable.
 */
export const CATALOG_KEYS = declareKeys({
  search: {
    name: 'Gw:Catalog:Search',
    field: oneOf(['off', 'on', 'auto'], 'off', 'must be off, on or auto'),
    description:
      "[Search mode](../guide/search-mode.md): `on` lists `search_tools` and `call_tool` (plus the agent's " +
      '`pinnedTools`) instead of the catalog; `auto` does so for an agent that may call more than ' +
      "`Gw:Catalog:SearchThreshold` tools. An agent's `toolSearch` (`off`, `on`, `auto`) overrides it.",
  },
  searchThreshold: {
    name: 'Gw:Catalog:SearchThreshold',
    field: positiveInt(DEFAULT_SEARCH_THRESHOLD),
    description: 'For `auto`: the number of callable tools above which an agent is in search mode.',
  },
  searchSemanticWeight: {
    name: 'Gw:Catalog:SearchSemanticWeight',
    field: {
      schema: z.coerce
        .number({ error: 'must be a number' })
        .min(0, 'must be from 0 to 1')
        .max(1, 'must be from 0 to 1')
        .default(0),
      type: 'number 0–1',
    },
    description:
      "Share (0–1) of search_tools' ranking taken from the embedding model (`Gw:Embedding:*`); 0 = lexical only. " +
      'See the measurements under [Search mode](../guide/search-mode.md).',
  },
});
