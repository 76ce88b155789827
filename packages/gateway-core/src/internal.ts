// `@tollgate/gateway-core/internal`: what apps/gateway needs beyond the public API,
// NOT public. Its transport's SSE framing and event ids, the checks and limits its
// configuration and dashboard share with the core, and helpers its tests use. It
// changes with the app, without a major version; anything else must not import it.
// A change here shows in etc/gateway-core.internal.api.md (`pnpm api:update`).

// The app's MCP transport: SSE framing, event ids and headers.
export { STREAM_RETRY_MS } from './mcp/mcp-messages.js';
export { eventId, PRIMING_EVENT, ANSWER_EVENT } from './mcp/stream-id.js';
export { SSE_CONTENT_TYPE, SSE_KEEP_ALIVE, sseMessage, ssePriming } from './protocol/sse.js';
export { PROTOCOL_VERSION_HEADER } from './protocol/protocol-version.js';
export type { JsonRpcNotification } from './protocol/jsonrpc.js';

// Defaults, checks and limits the app's configuration, management API and dashboard apply.
export { DEFAULT_LISTEN_LIMITS } from './mcp/listen-streams.js';
export { DEFAULT_SEARCH_THRESHOLD } from './catalog/search/search-mode.js';
export {
  EXTERNAL_ALGORITHMS,
  DEFAULT_CLOCK_TOLERANCE_SECONDS,
  DEFAULT_JWKS_COOLDOWN_SECONDS,
  DEFAULT_JWKS_MAX_STALE_SECONDS,
} from './auth/external-tokens.js';
export { DEFAULT_MAX_RESPONSE_BYTES } from './forward/forwarder.js';
export { scopeProblem, showInvisible } from './auth/identifiers.js';
export { MAX_TOKEN_LIFETIME_DAYS } from './auth/token-service.js';
export { MIN_SIGNING_KEY_BYTES, checkSigningKey } from './signing-key.js';
export { apiKeyWeakness } from './auth/api-key.js';
export { sameSecret } from './crypto/same-secret.js';
export { bearerToken } from './auth/bearer.js';
export { checkDownstreamHeaders } from './forward/headers.js';
export { isMutating } from './tools/access.js';
export { allowlistAllows } from './tools/allowlist.js';
export { OUTCOME_CLASSES, OUTCOME_CLASS_LABELS } from './usage/outcome-class.js';

// Token counting as the pipeline does it (the app's tests compare budgets with it).
export { countTokens } from './tokens/count.js';
