// The public API of @tollgate/gateway-core: what an application needs to wire
// a gateway together. Test support is in `@tollgate/gateway-core/testing`.
// A change here shows in etc/gateway-core.api.md (`pnpm api:update`).

// Errors: one catalogue decides status, JSON-RPC code, title and audit outcome.
export { ERROR_CATALOGUE, FAILURE_OUTCOMES, type ErrorCode, type ErrorKind, type FailureOutcome } from './error-catalogue.js';
export {
  GatewayError,
  UnauthorizedError,
  ForbiddenError,
  ToolRefusedError,
  BudgetExhaustedError,
  RateLimitedError,
  DownstreamError,
  DownstreamCallError,
  CircuitOpenError,
  TooManyCallsError,
  OverloadedError,
  StoreUnavailableError,
  TooManyAttemptsError,
  NotReadyError,
  IssuerUnavailableError,
  InsufficientScopeError,
  SubjectTakenError,
  NotFoundError,
  InvalidInputError,
  UnknownToolError,
  InvalidArgumentsError,
  ParseError,
  InvalidRequestError,
  MethodNotFoundError,
  SessionNotFoundError,
  StreamGoneError,
  ClientGoneError,
  ConfirmationUnavailableError,
  MissingClientCapabilityError,
  ConfirmationDeclinedError,
  InvalidRequestStateError,
  TransportError,
  ConfigError,
  describeError,
} from './errors.js';
export type { GatewayErrorOptions, UnauthorizedReason, ToolRefusal, DownstreamFailure, InvalidField, ErrorDescription, ConfigProblem } from './errors.js';

// The MCP endpoint as one use-case.
export { McpService, streamedMessage, transportFailure, STREAM_RETRY_MS } from './mcp/mcp-service.js';
export type { McpServiceOptions, McpPost, McpSessionEnd, McpReply, McpAnswer, McpResume, McpResumeReply, McpCredentials, ErrorDelivery, BearerChallenge } from './mcp/mcp-service.js';
export { eventId, PRIMING_EVENT, ANSWER_EVENT } from './mcp/stream-id.js';
export { ListenStreams, ToolListWatch, DEFAULT_LISTEN_LIMITS } from './mcp/listen-streams.js';
export type { ListenLimits } from './mcp/listen-streams.js';
export type { ListenReply } from './mcp/stateless-requests.js';
export { WriteConfirmation, DEFAULT_CONFIRMATION_TTL_MS, needsConfirmation } from './mcp/write-confirmation.js';
export type { WriteConfirmationOptions, ConfirmationRequest } from './mcp/write-confirmation.js';
export type { InputRequiredResult } from './protocol/input-required.js';
export type { HeaderRecord } from './mcp/tool-call-record.js';
export { SSE_CONTENT_TYPE, SSE_KEEP_ALIVE, sseMessage, ssePriming } from './protocol/sse.js';
export { type JsonRpcResponse, type JsonRpcId } from './protocol/jsonrpc.js';
export { PROTOCOL_VERSION_HEADER } from './protocol/protocol-version.js';
export type { ServerInfo } from './protocol/initialize.js';

// Agents and tokens.
export { AgentService } from './agents/agent-service.js';
export { labelProblem, scopeProblem, subjectProblem, showInvisible } from './auth/identifiers.js';
export type { AgentServiceOptions, NewAgent, BudgetView, AuthenticatedAgent, Actor, PendingBudgetWrites } from './agents/agent-service.js';
export { TokenService, MAX_TOKEN_LIFETIME_DAYS } from './auth/token-service.js';
export { MIN_SIGNING_KEY_BYTES, checkSigningKey } from './signing-key.js';
export type { TokenServiceOptions, IssuedToken, AgentTokenRequest, AgentClaims, AdminClaims } from './auth/token-service.js';
export { apiKeyMatches, apiKeyWeakness } from './auth/api-key.js';
export { ExternalTokens, EXTERNAL_ALGORITHMS, DEFAULT_CLOCK_TOLERANCE_SECONDS, DEFAULT_JWKS_COOLDOWN_SECONDS, DEFAULT_JWKS_MAX_STALE_SECONDS } from './auth/external-tokens.js';
export type { TrustedIssuer, AgentTemplate, ExternalAlgorithm, ExternalIdentity, ExternalTokensOptions } from './auth/external-tokens.js';
export {
  SignInThrottle,
  DEFAULT_SIGN_IN_MAX_FAILURES,
  DEFAULT_SIGN_IN_BACKOFF_MS,
  DEFAULT_SIGN_IN_MAX_BACKOFF_MS,
  DEFAULT_SIGN_IN_WINDOW_MS,
} from './auth/sign-in-throttle.js';
export type { SignInThrottleOptions } from './auth/sign-in-throttle.js';
export { bearerToken } from './auth/bearer.js';

// The tool-call pipeline and what it is built from.
export type { ToolCallDeps, ResponseFilter, ConfirmationGate } from './pipeline/tool-call.js';
export { SettlementQueue, type Settlements, type SettlementQueueOptions } from './pipeline/settlement-queue.js';
export { BudgetAdmission, DEFAULT_BUDGET_WAIT_MS, type BudgetAdmissionOptions, type BudgetAdmissionOutcome, type AdmitRequest } from './pipeline/budget-admission.js';
export { buildToolRegistry, ToolRegistry, type RegisteredTool, type BuiltToolRegistry } from './tools/registry.js';
export { describeToolProblem, TOOL_NAME_PATTERN, type QuerySerialization, type QueryStyle, type ToolCacheSettings, type ToolDefinition, type ToolDefinitionProblem, type ToolOrigin } from './tools/definition.js';
export { allowlistAllows } from './tools/allowlist.js';
export {
  importOpenApi,
  OpenApiDocumentError,
  parseSelectorList,
  SelectorError,
  type OpenApiImport,
  type OpenApiImportOptions,
  type OpenApiVersion,
  type SchemaLimits,
  type OperationNote,
  type OperationSelector,
} from './catalog/openapi/index.js';
export { DownstreamRouter } from './forward/downstream-router.js';
export { HttpForwarder, DEFAULT_MAX_RESPONSE_BYTES, type Forwarder, type ForwardResult, type HttpForwarderOptions, type RawAnswer } from './forward/forwarder.js';
export type { ForwardOptions, ForwardAssertion } from './forward/forwarder.js';
// Gateway assertions: the signed, short-lived proof on each forwarded call that it came through the gateway.
export { GatewayAssertionSigner, ASSERTION_HEADER, JWKS_PATH, type AssertionSubject, type JsonWebKeySet } from './assertion/assertion-signer.js';
export {
  resolveAssertionOptions,
  resolveAssertionSettings,
  DEFAULT_ASSERTION_ISSUER,
  DEFAULT_ASSERTION_ROTATION_MINUTES,
  MAX_ASSERTION_LIFETIME_SECONDS,
  MIN_ASSERTION_ROTATION_MINUTES,
  type AssertionSettings,
  type GatewayAssertionOptions,
  type ResolvedAssertionOptions,
  type ResolvedAssertionSettings,
} from './assertion/options.js';
export { ASSERTION_ALGORITHMS, type AssertionAlgorithm, type AssertionPublicJwk } from './assertion/derive-key.js';
export { WorkerLargeAnswers, DEFAULT_ANSWER_THREADS, DEFAULT_MAX_QUEUED_ANSWER_BYTES, type WorkerLargeAnswersOptions } from './answer/answer-pool.js';
export { DEFAULT_LARGE_ANSWER_BYTES, type LargeAnswers, type AnswerTask, type AnswerSource, type ProcessedAnswer } from './answer/large-answers.js';
export { checkDownstreamHeaders } from './forward/headers.js';
export { createResilientForwarder, type ResilientForwarder } from './resilience/resilient-forwarder.js';
export { resolveResilienceOptions, type ResolvedResilienceOptions, type ResilienceOptions, type BreakerOptions, type BreakerMode, type RetryOptions, type BreakerState, type BreakerStateChange } from './resilience/options.js';
export { countTokens } from './tokens/count.js';
export { SemanticCache, type SemanticCacheOptions, type ToolCacheOptions } from './cache/semantic-cache.js';
export { disagreement as semanticDisagreement, type FactKind, type SignificantTerm } from './cache/semantic-guard.js';
export { createPrivacyFilter, type PrivacyFilter } from './privacy/filter.js';
export { parsePrivacyConfig, type PrivacyConfig, type ToolPrivacyOverride } from './privacy/config.js';

// Audit trail.
export { AuditTrail, type AuditEvent, type AuditTrailOptions } from './audit/trail.js';
export { TOOL_CALL_OUTCOMES, checkAuditQuery } from './store/audit-records.js';
export type { AuditEntry, AuditRecord, AuditQuery, AuditPage, AuditKind, AuditOutcome, ToolCallAuditOutcome, CacheTier } from './store/audit-records.js';

// Whether a verb changes state (the write guard's rule), for views that show it.
export { isMutating } from './tools/access.js';
export type { HttpMethod } from './tools/definition.js';

// Usage over time: hourly counters kept as calls happen, and the reports read from them.
export { UsageRecorder, type UsageRecorderOptions } from './usage/usage-recorder.js';
export { parseUsageQuery, usageReport, latencyPercentile, USAGE_INTERVALS, USAGE_GROUPS, MAX_USAGE_RANGE_DAYS } from './usage/usage-report.js';
export type { UsageQuery, UsageQueryParams, UsageReport, UsageBucket, UsageFigures, UsageInterval, UsageGroup } from './usage/usage-report.js';
export { OUTCOME_CLASSES, OUTCOME_CLASS_LABELS, outcomeClass, type OutcomeClass } from './usage/outcome-class.js';
export { LATENCY_BOUNDS_MS, DEFAULT_USAGE_RETENTION_DAYS, type UsageCell, type UsageRange } from './store/usage-records.js';

// Stores, the embedding model and their health.
export type * from './store/ports.js';
export type { StoreOptions, AuditRetention } from './store/options.js';
export { createStore, parseStoreUrl } from './store/create-store.js';
export { createMemoryStore } from './store/memory/index.js';
export { checkStore } from './store/check.js';
export { PartialStoreOutage } from './store/partial-outage.js';
export { MAX_CALLS_PER_MINUTE, MAX_BURST } from './store/rate-limit-rules.js';
export { EmbeddingModelError, type EmbeddingModel } from './embedding/port.js';
export { loadLocalEmbeddingModel } from './embedding/local-model.js';
export { createOpenAiEmbeddingModel, type OpenAiEmbeddingOptions } from './embedding/openai-compatible.js';
export { checkEmbeddingModel, type ComponentHealth } from './embedding/check.js';

// Tool search (issue 28): search mode's two tools, and the ranking the dashboard shares.
export { ToolSearchMode, SEARCH_MODE_SETTINGS, DEFAULT_SEARCH_THRESHOLD, type SearchModeSetting, type ToolSearchModeOptions } from './catalog/search/search-mode.js';
export { ToolSearchIndex, type FoundTool, type ToolSearchOptions, type ToolSearchIndexOptions } from './catalog/search/tool-search-index.js';
export { SEARCH_TOOLS, CALL_TOOL, MAX_SEARCH_LIMIT, MAX_QUERY_LENGTH } from './catalog/search/virtual-tools.js';

// Tracing: span names and attributes (OpenTelemetry API; a no-op without an SDK).
export { SPAN_ATTRIBUTES, SPAN_NAMES, TRACER_NAME } from './tracing.js';
