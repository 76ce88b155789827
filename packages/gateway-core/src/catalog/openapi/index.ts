export {
  importOpenApi,
  MAX_TOOL_DESCRIPTION,
  type OpenApiImport,
  type OpenApiImportOptions,
  type OperationNote,
} from './import-openapi.js';
export { OpenApiDocumentError, openApiVersion, type OpenApiVersion } from './document.js';
export { parseSelector, parseSelectorList, SelectorError, type OperationSelector } from './selectors.js';
export { DEFAULT_SCHEMA_LIMITS, MAX_SCHEMA_DESCRIPTION, type SchemaLimits } from './schemas.js';
export { MAX_TOOL_NAME_LENGTH } from './tool-names.js';
