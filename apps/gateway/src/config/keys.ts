import { ADMIN_KEYS } from './admin-section.js';
import { ASSERTION_KEYS } from './assertion-section.js';
import { CACHE_KEYS, CACHE_TOOL_KEYS, CACHE_TOOLS_SECTION } from './cache-section.js';
import type { Declarations } from './declare.js';
import { BREAKER_KEYS } from './breaker-section.js';
import { DOWNSTREAM_KEYS, RETRY_KEYS, TOOL_REGISTRY_KEYS } from './downstream-section.js';
import { HTTP_KEYS } from './http-section.js';
import { MCP_KEYS } from './mcp-section.js';
import { RATE_LIMIT_KEYS, RATE_LIMIT_SECTION } from './rate-limit-section.js';
import { CATALOG_KEYS, EMBEDDING_KEYS } from './search-section.js';
import { METRICS_KEYS, MODE_KEYS, SERVER_KEYS, STORE_KEYS, USAGE_KEYS } from './server-section.js';

/**
 * Every group of single keys (each key declared once, in its section file),
 * in the order the reader reads them and so reports their problems; NODE_ENV
 * (MODE_KEYS) is read before them. The keys with a part users name
 * (downstreams, OAuth issuers, privacy rules, per-tool cache settings,
 * downstream headers) are read by their own section parsers; of those, the
 * per-tool cache settings and the rate-limit pair are declared too, and on
 * the page.
 */
export const CONFIG_KEYS = {
  server: SERVER_KEYS,
  downstream: DOWNSTREAM_KEYS,
  store: STORE_KEYS,
  admin: ADMIN_KEYS,
  mcp: MCP_KEYS,
  cache: CACHE_KEYS,
  http: HTTP_KEYS,
  breaker: BREAKER_KEYS,
  retry: RETRY_KEYS,
  metrics: METRICS_KEYS,
  usage: USAGE_KEYS,
  toolRegistry: TOOL_REGISTRY_KEYS,
  catalog: CATALOG_KEYS,
  embedding: EMBEDDING_KEYS,
  assertion: ASSERTION_KEYS,
};

/**
 * The reference page's sections (docs/reference/configuration.md, written by scripts/config-page.mjs): each group once.
 */
export const PAGE_SECTIONS: readonly { title: string; groups: readonly Declarations[] }[] = [
  { title: 'The gateway', groups: [SERVER_KEYS, STORE_KEYS, MODE_KEYS] },
  { title: 'The downstream API (single-key form)', groups: [DOWNSTREAM_KEYS, RETRY_KEYS, TOOL_REGISTRY_KEYS] },
  { title: 'Circuit breaker', groups: [BREAKER_KEYS] },
  { title: 'Signed assertions', groups: [ASSERTION_KEYS] },
  { title: 'Admin', groups: [ADMIN_KEYS] },
  { title: 'Default rate limit of new agents', groups: [RATE_LIMIT_KEYS] },
  { title: 'MCP', groups: [MCP_KEYS] },
  { title: 'HTTP server', groups: [HTTP_KEYS] },
  { title: 'Response cache', groups: [CACHE_KEYS, CACHE_TOOL_KEYS] },
  { title: 'Embedding model', groups: [EMBEDDING_KEYS] },
  { title: 'Search mode', groups: [CATALOG_KEYS] },
  { title: 'Metrics and usage', groups: [METRICS_KEYS, USAGE_KEYS] },
];

/**
 * The sections read whole by their own parsers, whose keys carry a part users
 * name (`Gw:Downstreams:<name>:BaseUrl`, `Gw:Downstream:Headers:<Name>`).
 */
export const OPEN_SECTIONS = {
  downstreams: 'Gw:Downstreams',
  downstreamHeaders: 'Gw:Downstream:Headers',
  cacheTools: CACHE_TOOLS_SECTION,
  rateLimit: RATE_LIMIT_SECTION,
  privacy: 'Gw:Privacy',
  oauth: 'Gw:OAuth',
} as const;
