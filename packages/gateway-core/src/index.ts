export * from './errors.js';
export { utcDay, nextUtcMidnight } from './time.js';

export type * from './store/ports.js';
export type { StoreOptions } from './store/options.js';
export { DEFAULT_RESERVATION_TTL_MS } from './store/options.js';
export { createStore, parseStoreUrl } from './store/create-store.js';
export { createMemoryStore } from './store/memory/index.js';
export { createRedisStore, DEFAULT_KEY_PREFIX } from './store/redis/index.js';

export { TokenService, TOKEN_ISSUER, ADMIN_AUDIENCE, AGENT_AUDIENCE, MIN_SIGNING_KEY_BYTES, MAX_TOKEN_LIFETIME_DAYS, checkSigningKey } from './auth/token-service.js';
export type { TokenServiceOptions, IssuedToken, AgentTokenRequest, AgentClaims, AdminClaims } from './auth/token-service.js';
export { apiKeyMatches } from './auth/api-key.js';

export { newAgentId, isAgentId, AGENT_ID_PATTERN } from './agents/agent-id.js';
export { AgentService } from './agents/agent-service.js';
export type { NewAgent, BudgetView, AuthenticatedAgent, AgentServiceOptions } from './agents/agent-service.js';

export type { EmbeddingModel } from './embedding/port.js';
export { EmbeddingModelError, cosineSimilarity } from './embedding/port.js';
export { loadLocalEmbeddingModel, LOCAL_EMBEDDING_MODEL_NAME } from './embedding/local-model.js';
export { createOpenAiEmbeddingModel, type OpenAiEmbeddingOptions } from './embedding/openai-compatible.js';
export { checkEmbeddingModel, type ComponentHealth } from './embedding/check.js';
export { checkStore } from './store/check.js';

// MCP protocol: JSON-RPC parsing, SSE framing, versions, initialize, tool results.
export { ParseError, InvalidRequestError, MethodNotFoundError } from './mcp/errors.js';
export { parseJsonRpcBody, classifyMessage, jsonRpcResult, jsonRpcError, jsonRpcErrorFrom } from './mcp/jsonrpc.js';
export type { JsonRpcId, JsonRpcParams, JsonRpcRequest, JsonRpcNotification, JsonRpcErrorObject, JsonRpcSuccess, JsonRpcFailure, JsonRpcResponse, IncomingMessage } from './mcp/jsonrpc.js';
export { sseMessage, SSE_KEEP_ALIVE, SSE_CONTENT_TYPE } from './mcp/sse.js';
export { SUPPORTED_PROTOCOL_VERSIONS, FALLBACK_PROTOCOL_VERSION, PROTOCOL_VERSION_HEADER, isSupportedProtocolVersion, negotiateProtocolVersion, protocolVersionForRequest, isAtLeast } from './mcp/protocol-version.js';
export type { ProtocolVersion } from './mcp/protocol-version.js';
export { InitializeParamsSchema, parseInitializeParams, buildInitializeResult } from './mcp/initialize.js';
export type { InitializeParams, InitializeResult, InitializeResultOptions, ServerInfo } from './mcp/initialize.js';
export { buildToolCallResult, type ToolCallResult } from './mcp/tool-result.js';

// Tools: definitions from /gw/schema, registry, access rule, argument validation, listing.
export { ToolDefinitionSchema, parseToolDefinitions, describeToolProblem, routeParameters, HTTP_METHODS, PARAMETER_SOURCES, DEFAULT_MAX_RESPONSE_TOKENS, TOOL_NAME_PATTERN } from './tools/definition.js';
export type { ToolDefinition, InputSchema, HttpMethod, ParameterSource, ToolDefinitionProblem, ParsedToolDefinitions } from './tools/definition.js';
export { ToolRegistry, buildToolRegistry } from './tools/registry.js';
export type { RegisteredTool, ToolInputSchema, BuiltToolRegistry } from './tools/registry.js';
export { toolAccess, toolsForAgent, authorizeToolCall, isMutating, ToolRefusedError } from './tools/access.js';
export type { ToolCaller, ToolAccess } from './tools/access.js';
export { validateToolArguments } from './tools/arguments.js';
export { toMcpTool, toolsListResult } from './tools/listing.js';
export type { McpTool, ToolAnnotations } from './tools/listing.js';

// Forwarding to the downstream.
export { HttpForwarder, DEFAULT_TIMEOUT_MS, DEFAULT_MAX_RESPONSE_BYTES } from './forward/forwarder.js';
export type { Forwarder, ForwardResult, HttpForwarderOptions } from './forward/forwarder.js';
export { DownstreamCallError, type DownstreamFailure } from './forward/errors.js';
export { buildDownstreamRequest, type DownstreamRequest } from './forward/request.js';
export { checkDownstreamHeaders, endToEndHeaders, HOP_BY_HOP_HEADERS } from './forward/headers.js';

// Token counting (o200k_base) and the response cap.
export { countTokens, tokensWithin } from './tokens/count.js';
export { capResponse, type CappedResponse, type TruncationMarker } from './tokens/cap.js';
export type { TruncationCut } from './tokens/prune.js';

// The MCP service and the tool-call pipeline.
export { SessionNotFoundError } from './mcp/errors.js';
export { McpService } from './mcp/mcp-service.js';
export type { McpServiceOptions, McpCaller, McpSession, McpRequestOutcome, McpCallOptions } from './mcp/mcp-service.js';
export { callTool } from './pipeline/tool-call.js';
export { SettlementQueue } from './pipeline/settlement-queue.js';
export type { Settlements, SettlementQueueOptions } from './pipeline/settlement-queue.js';
export { EarlyReservation, EarlyReservations } from './pipeline/early-reservation.js';
export type { EarlyReservationsOptions } from './pipeline/early-reservation.js';
export type { ToolCallDeps, ToolCallContext, ToolCallParams, ToolCallOutcome, ToolCallTrace, ResponseFilter } from './pipeline/tool-call.js';

// Resilience: circuit breaker and retries around a Forwarder.
export { createResilientForwarder, type ResilientForwarder } from './resilience/resilient-forwarder.js';
export { resolveResilienceOptions, DEFAULT_BREAKER_OPTIONS, DEFAULT_RETRY_OPTIONS, MAX_RETRIES } from './resilience/options.js';
export type { ResilienceOptions, ResolvedResilienceOptions, BreakerOptions, BreakerMode, RetryOptions, BreakerState, BreakerStateChange } from './resilience/options.js';

// Audit trail: records, the queued writer, the arguments digest.
export { TOOL_CALL_OUTCOMES, MAX_AUDIT_DETAIL_LENGTH, MAX_AUDIT_PAGE_SIZE, isAuditCursor, checkAuditQuery } from './audit/record.js';
export type { AuditEntry, AuditRecord, AuditKind, AuditOutcome, ToolCallAuditOutcome, ManagementAuditOutcome, CacheTier, AuditQuery, AuditPage } from './audit/record.js';
export { AuditTrail, type AuditEvent, type AuditTrailOptions } from './audit/trail.js';
export { argsDigest } from './audit/digest.js';
export { AUDIT_SCAN_LIMIT } from './store/redis/audit.js';
export { DEFAULT_AUDIT_RETENTION, DEFAULT_MEMORY_CACHE_MAX_ENTRIES, type AuditRetention } from './store/options.js';

// Response cache: exact and semantic tiers.
export { SemanticCache, exactKey, DEFAULT_SIMILARITY_THRESHOLD, DEFAULT_CACHE_TTL_MS, DEFAULT_MAX_CANDIDATES } from './cache/semantic-cache.js';
export type { SemanticCacheOptions, ToolCacheOptions, CacheHit, CacheableTool } from './cache/semantic-cache.js';
export { splitArguments, type SplitArguments } from './cache/arguments.js';
export { canonicalJson } from './cache/canonical-json.js';
export { toolCallFailureOutcome } from './audit/outcome.js';

// Tracing: span names and attributes of the tool-call pipeline (OpenTelemetry API; no-op without an SDK).
export { inSpan, recordFailure, SPAN_ATTRIBUTES, SPAN_NAMES, TRACER_NAME } from './tracing.js';

// Privacy: the filter every downstream response goes through, its detectors and its configuration.
export { createPrivacyFilter, MAX_FILTER_DEPTH } from './privacy/filter.js';
export type { PrivacyFilter, PrivacyFilterResult } from './privacy/filter.js';
export { parsePrivacyConfig } from './privacy/config.js';
export type { PrivacyConfig, ToolPrivacyOverride } from './privacy/config.js';
export type { PrivacyRule } from './privacy/custom-rule.js';
export { MAX_RULE_PATTERN_LENGTH } from './privacy/custom-rule.js';
export { DETECTOR_NAMES, isDetectorName, type DetectorName } from './privacy/detectors.js';
export { DEFAULT_REDACTED_FIELDS, normalizeFieldName } from './privacy/field-names.js';
export { redactionMarker, type RedactionCounts } from './privacy/scanner.js';
