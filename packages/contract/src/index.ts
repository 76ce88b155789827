// The wire contract between a downstream (host-kit, or anything serving the same JSON) and the gateway.
export {
  DEFAULT_MAX_RESPONSE_TOKENS,
  HTTP_METHODS,
  MAX_SIGNIFICANT_TERMS,
  MAX_SYNONYMS,
  MAX_TERM_LENGTH,
  PARAMETER_SOURCES,
  SCHEMA_PATH,
  TOOL_NAME_PATTERN,
} from './tool-definition.js';
export type {
  HttpMethod,
  InputProperty,
  InputSchema,
  ParameterSource,
  ToolCacheSettings,
  ToolDefinition,
} from './tool-definition.js';
export {
  ASSERTION_ALGORITHMS,
  ASSERTION_HEADER,
  DEFAULT_ASSERTION_ISSUER,
  JWKS_PATH,
  MAX_ASSERTION_LIFETIME_SECONDS,
} from './assertion.js';
export type { AssertionAlgorithm } from './assertion.js';
export { PARAM_HEADER_MARK, paramHeaderProblem } from './param-headers.js';
export type { ParamHeaderType } from './param-headers.js';
