export type {
  HttpMethod,
  InputProperty,
  InputSchema,
  ParameterSource,
  ToolDefinition,
} from './tool-definition.js';
export { DEFAULT_MAX_RESPONSE_TOKENS, TOOL_NAME_PATTERN } from './tool-definition.js';
export type { AgentToolManifest, ActionBinding, ControllerBinding, ParameterBinding, ScalarKind } from './manifest.js';
