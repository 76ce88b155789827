export * from './errors.js';
export { utcDay, nextUtcMidnight } from './time.js';

export type * from './store/ports.js';
export type { StoreOptions } from './store/options.js';
export { DEFAULT_RESERVATION_TTL_MS } from './store/options.js';
export { createStore, STORE_CONFIG_KEY } from './store/create-store.js';
export { createMemoryStore } from './store/memory/index.js';
export { createRedisStore, DEFAULT_KEY_PREFIX } from './store/redis/index.js';

export { TokenService, TOKEN_ISSUER, ADMIN_AUDIENCE, AGENT_AUDIENCE, MIN_SIGNING_KEY_BYTES, MAX_TOKEN_LIFETIME_DAYS, SIGNING_KEY_CONFIG_KEY } from './auth/token-service.js';
export type { TokenServiceOptions, IssuedToken, AgentTokenRequest, AgentClaims, AdminClaims } from './auth/token-service.js';
export { apiKeyMatches } from './auth/api-key.js';

export { newAgentId, isAgentId, AGENT_ID_PATTERN } from './agents/agent-id.js';
export { AgentService } from './agents/agent-service.js';
export type { NewAgent, BudgetView, AuthenticatedAgent, AgentServiceOptions } from './agents/agent-service.js';
