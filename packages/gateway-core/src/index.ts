// The public API of @tollgate/gateway-core: what an application needs to wire
// a gateway together, exported deliberately. Two groups are namespaces, each also
// an entry of its own: `errors` (`@tollgate/gateway-core/errors`) and `store`
// (`@tollgate/gateway-core/store`). Test support is in `@tollgate/gateway-core/testing`.
// What only apps/gateway needs is in `@tollgate/gateway-core/internal`, which is not public.
// A change here shows in etc/gateway-core.api.md (`pnpm api:update`).

// Errors: one catalogue decides status, JSON-RPC code, title and audit outcome.
export * as errors from './api/errors.js';
// Stores: the ports, the memory and Redis adapters, and their records.
export * as store from './api/store.js';

// The MCP endpoint as one use-case.
export { McpService } from './mcp/mcp-service.js';
export { streamedMessage, transportFailure } from './mcp/mcp-replies.js';
export type { McpServiceOptions } from './mcp/mcp-service-options.js';
export type {
  McpPost,
  McpSessionEnd,
  McpReply,
  McpAnswer,
  McpResume,
  McpResumeReply,
  McpCredentials,
  ErrorDelivery,
  BearerChallenge,
} from './mcp/mcp-messages.js';
export { ListenStreams, ToolListWatch } from './mcp/listen-streams.js';
export type { ListenLimits } from './mcp/listen-streams.js';
export type { ListenReply } from './mcp/stateless-requests.js';
export { WriteConfirmation } from './mcp/write-confirmation.js';
export type { JsonRpcResponse } from './protocol/jsonrpc.js';
export type { ServerInfo } from './protocol/initialize.js';

// Agents and tokens.
export { AgentService } from './agents/agent-service.js';
export type { AgentServiceOptions, NewAgent, BudgetView, AuthenticatedAgent } from './agents/agent-service.js';
export { TokenService } from './auth/token-service.js';
export type { AgentClaims, TokenServiceOptions, IssuedToken } from './auth/token-service.js';
export { ExternalTokens } from './auth/external-tokens.js';
export type { TrustedIssuer, ExternalAlgorithm, ExternalTokensOptions } from './auth/external-tokens.js';
export { SignInThrottle } from './auth/sign-in-throttle.js';

// The tool-call pipeline and what it is built from.
export type { ToolCallDeps } from './pipeline/tool-call-deps.js';
export { SettlementQueue } from './pipeline/settlement-queue.js';
export { BudgetAdmission } from './pipeline/budget-admission.js';
export { buildToolRegistry, ToolRegistry, type RegisteredTool, type BuiltToolRegistry } from './tools/registry.js';
export {
  describeToolProblem,
  TOOL_NAME_PATTERN,
  type ToolCacheSettings,
  type ToolDefinition,
  type ToolDefinitionProblem,
  type HttpMethod,
} from './tools/definition.js';
export {
  importOpenApi,
  OpenApiDocumentError,
  parseSelectorList,
  SelectorError,
  type OpenApiImport,
  type OpenApiImportOptions,
  type OperationNote,
  type OperationSelector,
} from './catalog/openapi/index.js';
export { DownstreamRouter } from './forward/downstream-router.js';
export {
  HttpForwarder,
  type HttpForwarderOptions,
  type Forwarder,
  type ForwardResult,
  type ForwardOptions,
} from './forward/forwarder.js';
// Gateway assertions: the signed, short-lived proof on each forwarded call that it came through the gateway.
export {
  GatewayAssertionSigner,
  ASSERTION_HEADER,
  JWKS_PATH,
  type AssertionSubject,
} from './assertion/assertion-signer.js';
export {
  resolveAssertionSettings,
  DEFAULT_ASSERTION_ISSUER,
  MAX_ASSERTION_LIFETIME_SECONDS,
  type AssertionSettings,
  type ResolvedAssertionSettings,
} from './assertion/options.js';
export { ASSERTION_ALGORITHMS, type AssertionAlgorithm } from './assertion/derive-key.js';
export { WorkerLargeAnswers } from './answer/answer-pool.js';
export type { LargeAnswers, AnswerTask, ProcessedAnswer } from './answer/large-answers.js';
export { createResilientForwarder, type ResilientForwarder } from './resilience/resilient-forwarder.js';
export {
  resolveResilienceOptions,
  type ResolvedResilienceOptions,
  type ResilienceOptions,
  type BreakerOptions,
  type BreakerMode,
  type RetryOptions,
  type BreakerState,
  type BreakerStateChange,
} from './resilience/options.js';
export { SemanticCache, type SemanticCacheOptions } from './cache/semantic-cache.js';
export { createPrivacyFilter, type PrivacyFilter } from './privacy/filter.js';
export { parsePrivacyConfig, type PrivacyConfig, type ToolPrivacyOverride } from './privacy/config.js';

// Audit trail.
export { AuditTrail, type AuditEvent } from './audit/trail.js';

// Usage over time: hourly counters kept as calls happen, and the reports read from them.
export { UsageRecorder } from './usage/usage-recorder.js';
export { parseUsageQuery, usageReport } from './usage/usage-report.js';
export type { UsageQueryParams, UsageReport, UsageFigures } from './usage/usage-report.js';
export type { OutcomeClass } from './usage/outcome-class.js';

// The embedding model and its health.
export { EmbeddingModelError, type EmbeddingModel } from './embedding/port.js';
export { loadLocalEmbeddingModel } from './embedding/local-model.js';
export { createOpenAiEmbeddingModel, type OpenAiEmbeddingOptions } from './embedding/openai-compatible.js';
export { checkEmbeddingModel, type ComponentHealth } from './embedding/check.js';

// Tool search (issue 28): search mode's two tools, and the ranking the dashboard shares.
export { ToolSearchMode } from './catalog/search/search-mode.js';
export { ToolSearchIndex } from './catalog/search/tool-search-index.js';

// Tracing: span names and attributes (OpenTelemetry API; a no-op without an SDK).
export { SPAN_ATTRIBUTES, SPAN_NAMES, TRACER_NAME } from './tracing.js';
