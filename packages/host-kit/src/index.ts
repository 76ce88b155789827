export type {
  HttpMethod,
  InputProperty,
  InputSchema,
  ParameterSource,
  ToolCacheSettings,
  ToolDefinition,
} from './tool-definition.js';
export { DEFAULT_MAX_RESPONSE_TOKENS, TOOL_NAME_PATTERN } from './tool-definition.js';
export type {
  AgentToolManifest,
  ActionBinding,
  BodyField,
  ControllerBinding,
  FrameworkBinding,
  ParameterBinding,
  ScalarKind,
  ValueKind,
} from './manifest.js';

// Endpoint form: mark Hono routes and serve GET /gw/schema.
export { withAgentTool } from './endpoint/with-agent-tool.js';
export type { AgentToolOptions } from './endpoint/agent-tool-options.js';
export { mapAgentToolSchema, SCHEMA_PATH } from './schema-endpoint.js';
export type { AgentToolSchemaOptions } from './schema-endpoint.js';

// Annotation form: @AgentTool on controller methods, read at build time by `host-kit build`.
export { AgentTool, Controller, Delete, Get, Patch, Post, Put } from './annotation/decorators.js';
export type { AgentToolAnnotation } from './annotation/decorators.js';
export type { FromBody, FromHeader, FromQuery, FromRoute, FromServices, Int } from './annotation/markers.js';
export { mountControllers } from './annotation/mount-controllers.js';
export { asAgentToolManifest } from './annotation/as-manifest.js';
export type { ControllerInput, MountControllersOptions } from './annotation/mount-controllers.js';

// Trusting only the gateway: marked routes require the gateway's signed assertion.
export { requireGateway, GATEWAY_ASSERTION_HEADER } from './gateway/require-gateway.js';
export type { RequireGatewayOptions } from './gateway/require-gateway.js';
export type { GatewayCaller } from './gateway/caller.js';
export type { GatewayKeys } from './gateway/key-source.js';
export type { RefusalReason as GatewayRefusalReason } from './gateway/assertion-check.js';
