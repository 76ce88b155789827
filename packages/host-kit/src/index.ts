export type {
  HttpMethod,
  InputProperty,
  InputSchema,
  ParameterSource,
  ToolDefinition,
} from './tool-definition.js';
export { DEFAULT_MAX_RESPONSE_TOKENS, TOOL_NAME_PATTERN } from './tool-definition.js';
export type { AgentToolManifest, ActionBinding, ControllerBinding, ParameterBinding, ScalarKind } from './manifest.js';

// Endpoint form: mark Hono routes and serve GET /gw/schema.
export { withAgentTool } from './endpoint/with-agent-tool.js';
export type { AgentToolOptions } from './endpoint/agent-tool-options.js';
export { mapAgentToolSchema, SCHEMA_PATH } from './schema-endpoint.js';
export type { AgentToolSchemaOptions } from './schema-endpoint.js';
