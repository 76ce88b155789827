import { ADMIN_KEYS } from './admin-section.js';
import { ASSERTION_KEYS } from './assertion-section.js';
import { CACHE_KEYS, CACHE_TOOL_KEYS } from './cache-section.js';
import { type Declarations, sectionOf } from './declare.js';
import { BREAKER_KEYS } from './breaker-section.js';
import { DOWNSTREAM_HEADERS_KEYS, DOWNSTREAM_KEYS, RETRY_KEYS, TOOL_REGISTRY_KEYS } from './downstream-section.js';
import { DOWNSTREAMS_KEYS } from './downstreams-keys.js';
import { HTTP_KEYS } from './http-section.js';
import { MCP_KEYS } from './mcp-section.js';
import { OAUTH_KEYS } from './oauth-section.js';
import { PRIVACY_KEYS } from './privacy-section.js';
import { RATE_LIMIT_KEYS } from './rate-limit-section.js';
import { CATALOG_KEYS, EMBEDDING_KEYS } from './search-section.js';
import { LOG_KEYS, METRICS_KEYS, MODE_KEYS, SERVER_KEYS, STORE_KEYS, USAGE_KEYS } from './server-section.js';

/**
 * Every group of single keys (each key declared once, in its section file),
 * in the order the reader reads them and so reports their problems; NODE_ENV
 * (MODE_KEYS) is read before them, LOG_LEVEL (LOG_KEYS) by the logger. The
 * keys with a part users name (`Gw:Downstreams:<name>:BaseUrl`) and the
 * rate-limit pair are declared in their section files too, and read by their
 * sections' parsers (OPEN_SECTIONS).
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
  { title: 'The gateway', groups: [SERVER_KEYS, STORE_KEYS, MODE_KEYS, LOG_KEYS] },
  {
    title: 'The downstream API (single-key form)',
    groups: [DOWNSTREAM_KEYS, DOWNSTREAM_HEADERS_KEYS, RETRY_KEYS, TOOL_REGISTRY_KEYS],
  },
  { title: 'Named downstreams', groups: [DOWNSTREAMS_KEYS] },
  { title: 'Circuit breaker', groups: [BREAKER_KEYS] },
  { title: 'Signed assertions', groups: [ASSERTION_KEYS] },
  { title: 'Admin', groups: [ADMIN_KEYS] },
  { title: 'OAuth: trusted identity providers', groups: [OAUTH_KEYS] },
  { title: 'Default rate limit of new agents', groups: [RATE_LIMIT_KEYS] },
  { title: 'MCP', groups: [MCP_KEYS] },
  { title: 'HTTP server', groups: [HTTP_KEYS] },
  { title: 'Response cache', groups: [CACHE_KEYS, CACHE_TOOL_KEYS] },
  { title: 'Privacy filter', groups: [PRIVACY_KEYS] },
  { title: 'Embedding model', groups: [EMBEDDING_KEYS] },
  { title: 'Search mode', groups: [CATALOG_KEYS] },
  { title: 'Metrics and usage', groups: [METRICS_KEYS, USAGE_KEYS] },
];

/**
 * The sections read whole by their own parsers, whose keys carry a part users
 * name (`Gw:Downstreams:<name>:BaseUrl`, `Gw:Downstream:Headers:<Name>`) or go together.
 */
export const OPEN_SECTIONS = {
  downstreams: sectionOf(DOWNSTREAMS_KEYS),
  downstreamHeaders: sectionOf(DOWNSTREAM_HEADERS_KEYS),
  cacheTools: sectionOf(CACHE_TOOL_KEYS),
  rateLimit: sectionOf(RATE_LIMIT_KEYS),
  privacy: sectionOf(PRIVACY_KEYS),
  oauth: sectionOf(OAUTH_KEYS),
};
