import {
  DEFAULT_MAX_RESPONSE_TOKENS,
  HTTP_METHODS,
  ToolDefinitionSchema,
  type HttpMethod,
  type QuerySerialization,
  type ToolDefinition,
} from '../../tools/definition.js';
import { dereferenced, isObject, openApiVersion, type JsonObject, type OpenApiVersion } from './document.js';
import {
  DEFAULT_SCHEMA_LIMITS,
  OperationRefusal,
  OperationSchemas,
  trimmed,
  withType,
  type SchemaLimits,
} from './schemas.js';
import { selectsAny, type OperationSelector, type SelectableOperation } from './selectors.js';
import { fromSwagger2, isSwagger2 } from './swagger2.js';
import { assignToolNames, MAX_TOOL_NAME_LENGTH, type Renaming } from './tool-names.js';

/**
 * OpenAPI 3.0/3.1 document (or Swagger 2.0, converted to 3.0 first, in place) → the
 * gateway's tool definitions, one per selected operation. Pure: the document is already read and its external
 * `$ref`s bundled in (apps/gateway reads files and URLs). Every operation
 * that cannot be called properly is left out with its reason, and the rest
 * are imported: one odd operation never costs the others.
 */

export interface OpenApiImportOptions {
  /** The downstream's tool-name prefix ('' = none): names are fitted to 64 characters with it. */
  prefix?: string;
  /** Only these operations (default: all). */
  include?: readonly OperationSelector[];
  /** Never these, even when included. */
  exclude?: readonly OperationSelector[];
  /** The POST/PUT/PATCH/DELETE operations that may be called; every other one is imported with `allowWrite: false`. */
  allowWrite?: readonly OperationSelector[];
  limits?: Partial<SchemaLimits>;
}

/** An operation left out, or imported with something left out or renamed. */
export interface OperationNote {
  /** `POST /repos/{owner}/{repo}/issues`. */
  operation: string;
  operationId: string | null;
  reason: string;
}

export interface OpenApiImport {
  /** The version read: a Swagger 2.0 document is read as the 3.0 one it converts to. */
  version: OpenApiVersion;
  /** Set when the document was Swagger 2.0 and converted. */
  convertedFrom?: '2.0';
  /** Under their declared names (without the prefix), ready for the catalog. */
  tools: ToolDefinition[];
  /** Selected operations that were not imported, with why. */
  skipped: OperationNote[];
  /** Imported operations with a parameter or body left out, or a changed name. */
  notes: OperationNote[];
  /** Operations not selected by Include/Exclude. */
  excluded: number;
}

/** Tool descriptions (summary, then description) are cut to this many characters. */
export const MAX_TOOL_DESCRIPTION = 1000;

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'] as const;
const JSON_MEDIA_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

interface Candidate {
  operation: string;
  operationId: string | null;
  method: string;
  path: string;
  definition: Omit<ToolDefinition, 'name'>;
  notes: string[];
}

export function importOpenApi(document: unknown, options: OpenApiImportOptions = {}): OpenApiImport {
  const converted = isSwagger2(document) ? fromSwagger2(document) : undefined;
  const doc = (converted?.document ?? document) as JsonObject;
  const version = openApiVersion(doc);
  const limits = { ...DEFAULT_SCHEMA_LIMITS, ...options.limits };
  const skipped: OperationNote[] = [];
  const candidates: Candidate[] = [];
  let excluded = 0;
  for (const { method, path, pathItem, operation } of operations(doc, skipped)) {
    const operationId =
      typeof operation.operationId === 'string' && operation.operationId.trim() !== '' ? operation.operationId : null;
    const tags = Array.isArray(operation.tags)
      ? operation.tags.filter((tag): tag is string => typeof tag === 'string')
      : [];
    const selectable: SelectableOperation = { method, path, operationId, tags };
    if (
      (options.include && options.include.length > 0 && !selectsAny(options.include, selectable)) ||
      selectsAny(options.exclude ?? [], selectable)
    ) {
      excluded++;
      continue;
    }
    const label = `${method} ${path}`;
    const unconvertible = converted?.unconvertible.get(label);
    if (unconvertible !== undefined) {
      skipped.push({ operation: label, operationId, reason: unconvertible });
      continue;
    }
    try {
      const allowWrite = method !== 'GET' && selectsAny(options.allowWrite ?? [], selectable);
      const built = buildOperation(doc, version, limits, { method, path, pathItem, operation, tags, allowWrite });
      candidates.push({ operation: label, operationId, method, path, ...built });
    } catch (error) {
      if (!(error instanceof OperationRefusal)) throw error;
      skipped.push({ operation: label, operationId, reason: error.message });
    }
  }
  return {
    version,
    ...(converted ? { convertedFrom: '2.0' as const } : {}),
    ...named(candidates, options.prefix ?? '', skipped),
    skipped,
    excluded,
  };
}

interface FoundOperation {
  method: string;
  path: string;
  pathItem: JsonObject;
  operation: JsonObject;
}

/** Every operation in the document, in its order; methods the gateway cannot send are skipped here. */
function* operations(doc: JsonObject, skipped: OperationNote[]): Generator<FoundOperation> {
  for (const [path, raw] of Object.entries(isObject(doc.paths) ? doc.paths : {})) {
    const item = dereferenced(doc, raw);
    if ('problem' in item) {
      skipped.push({ operation: path, operationId: null, reason: `its path item ${item.problem}` });
      continue;
    }
    for (const lower of METHODS) {
      const operation = item.value[lower];
      if (operation === undefined) continue;
      const method = lower.toUpperCase();
      if (!isObject(operation))
        skipped.push({ operation: `${method} ${path}`, operationId: null, reason: 'the operation is not an object' });
      else if (!(HTTP_METHODS as readonly string[]).includes(method)) {
        skipped.push({
          operation: `${method} ${path}`,
          operationId: typeof operation.operationId === 'string' ? operation.operationId : null,
          reason: `the gateway sends ${HTTP_METHODS.join(', ')} only`,
        });
      } else yield { method, path, pathItem: item.value, operation };
    }
  }
}

interface OperationInput {
  method: string;
  path: string;
  pathItem: JsonObject;
  operation: JsonObject;
  tags: string[];
  allowWrite: boolean;
}

function buildOperation(
  doc: JsonObject,
  version: OpenApiVersion,
  limits: SchemaLimits,
  input: OperationInput,
): Pick<Candidate, 'definition' | 'notes'> {
  const schemas = new OperationSchemas(doc, version, limits);
  const notes: string[] = [];
  const properties: JsonObject = {};
  const required: string[] = [];
  const parameterSources: ToolDefinition['parameterSources'] = {};
  const querySerialization: Record<string, QuerySerialization> = {};
  const add = (name: string, source: 'route' | 'query' | 'body', schema: unknown, isRequired: boolean) => {
    if (name in parameterSources)
      throw new OperationRefusal(`two inputs are named "${name}" (${parameterSources[name]} and ${source})`);
    properties[name] = withType(schema);
    parameterSources[name] = source;
    if (isRequired) required.push(name);
  };

  for (const parameter of parametersOf(doc, input.pathItem, input.operation)) {
    const { name, location } = parameter;
    if (location === 'header' || location === 'cookie') {
      if (parameter.raw.required === true)
        throw new OperationRefusal(
          `its required ${location} parameter "${name}" cannot be sent: the gateway sends only path and query ` +
            `inputs and a JSON body`,
        );
      notes.push(`optional ${location} parameter "${name}" left out`);
      continue;
    }
    if (location !== 'path' && location !== 'query')
      throw new OperationRefusal(`parameter "${name}" is in "${String(location)}", which OpenAPI does not define`);
    if (!isObject(parameter.raw.schema) && typeof parameter.raw.schema !== 'boolean') {
      if (location === 'path' || parameter.raw.required === true)
        throw new OperationRefusal(`parameter "${name}" has no schema (a content-typed parameter is not supported)`);
      notes.push(`query parameter "${name}" without a schema left out`);
      continue;
    }
    const schema = schemas.convert(parameter.raw.schema) as JsonObject;
    const described =
      typeof parameter.raw.description === 'string' && parameter.raw.description.trim() !== ''
        ? { ...withType(schema), description: trimmed(parameter.raw.description, 300) }
        : schema;
    if (location === 'path') {
      const style = parameter.raw.style ?? 'simple';
      if (style !== 'simple')
        throw new OperationRefusal(`path parameter "${name}" has style "${String(style)}"; only "simple" is supported`);
      if (!isScalar(schema))
        throw new OperationRefusal(
          `path parameter "${name}" is an array or object; only single values can go in a path segment`,
        );
      add(name, 'route', described, true);
    } else {
      const serialization = queryStyle(name, parameter.raw, schema);
      if (serialization) querySerialization[name] = serialization;
      add(name, 'query', described, parameter.raw.required === true);
    }
  }
  const missing = [...input.path.matchAll(/\{([^{}/]+)\}/g)]
    .map((match) => match[1]!)
    .filter((name) => parameterSources[name] !== 'route');
  if (missing.length > 0)
    throw new OperationRefusal(`its path names {${missing.join('}, {')}} but declares no path parameter of that name`);

  const bodyNames: Record<string, string> = {};
  const body = jsonBody(doc, input.operation, schemas, notes);
  if (body) {
    for (const [property, schema] of Object.entries(body.properties)) {
      const name = bodyInputName(property, parameterSources);
      if (name !== property) {
        bodyNames[name] = property;
        notes.push(
          `body property "${property}" is the input "${name}": a ${parameterSources[property]} parameter is ` +
            `named "${property}"`,
        );
      }
      add(
        name,
        'body',
        name === property ? schema : renamedBodySchema(schema, property),
        body.required.includes(property),
      );
    }
  }
  if (isObject(input.operation.callbacks) && Object.keys(input.operation.callbacks).length > 0)
    notes.push('callbacks not imported (the gateway does not receive calls)');

  const defs = schemas.defs();
  const inputSchema = { type: 'object' as const, properties, required, ...(defs ? { $defs: defs } : {}) };
  return {
    notes,
    definition: {
      description: describe(input),
      allowWrite: input.allowWrite,
      confirm: false,
      maxResponseTokens: DEFAULT_MAX_RESPONSE_TOKENS,
      category: input.tags[0] ?? null,
      requiredScopes: scopesOf(doc, input.operation),
      httpMethod: input.method as HttpMethod,
      routePattern: input.path,
      parameterSources,
      inputSchema: inputSchema as ToolDefinition['inputSchema'],
      ...(Object.keys(querySerialization).length > 0 ? { querySerialization } : {}),
      ...(Object.keys(bodyNames).length > 0 ? { bodyNames } : {}),
    },
  };
}

/**
 * The input a body property is taken as: its own name, or `body_<name>` when
 * a path or query parameter has that name (GitHub's `PATCH
 * /orgs/{org}/actions/variables/{name}` renames a variable: the path's `name`
 * is the old one, the body's the new one). `bodyNames` maps it back.
 */
function bodyInputName(property: string, taken: ToolDefinition['parameterSources']): string {
  if (!(property in taken)) return property;
  const renamed = `body_${property}`;
  if (renamed in taken)
    throw new OperationRefusal(
      `its body property "${property}" is named like a ${taken[property]} parameter, and "${renamed}" is taken too`,
    );
  return renamed;
}

/** Says in the renamed input's description what it is sent as, so an agent can tell the two apart. */
function renamedBodySchema(schema: unknown, property: string): JsonObject {
  const typed = withType(schema);
  const said = `Sent as "${property}" in the JSON body.`;
  return { ...typed, description: typeof typed.description === 'string' ? `${typed.description} (${said})` : said };
}

interface Parameter {
  name: string;
  location: unknown;
  raw: JsonObject;
}

/** The path item's parameters, overridden by the operation's of the same name and location. */
function parametersOf(doc: JsonObject, pathItem: JsonObject, operation: JsonObject): Parameter[] {
  const byKey = new Map<string, Parameter>();
  for (const list of [pathItem.parameters, operation.parameters]) {
    if (list === undefined) continue;
    if (!Array.isArray(list)) throw new OperationRefusal('"parameters" is not a list');
    for (const entry of list) {
      const found = dereferenced(doc, entry);
      if ('problem' in found) throw new OperationRefusal(`a parameter ${found.problem}`);
      const { name, in: location } = found.value;
      if (typeof name !== 'string' || name === '') throw new OperationRefusal('a parameter has no name');
      byKey.set(`${String(location)}:${name}`, { name, location, raw: found.value });
    }
  }
  return [...byKey.values()];
}

function isScalar(schema: JsonObject): boolean {
  const types = [schema.type].flat();
  return (
    !types.includes('array') &&
    !types.includes('object') &&
    schema.properties === undefined &&
    schema.items === undefined
  );
}

/** OpenAPI's defaults: `form`, exploded. Recorded only for arrays and objects, whose form the style changes. */
function queryStyle(name: string, raw: JsonObject, schema: JsonObject): QuerySerialization | undefined {
  if (isScalar(schema)) return undefined;
  const style = raw.style ?? 'form';
  if (style !== 'form' && style !== 'spaceDelimited' && style !== 'pipeDelimited' && style !== 'deepObject') {
    throw new OperationRefusal(
      `query parameter "${name}" has style "${String(style)}", which OpenAPI does not define for query parameters`,
    );
  }
  return {
    style,
    explode: typeof raw.explode === 'boolean' ? raw.explode : style === 'form' || style === 'deepObject',
  };
}

interface BodyInputs {
  properties: Record<string, unknown>;
  required: string[];
}

/**
 * The JSON request body as named inputs (its top-level properties), as the
 * gateway sends bodies. A body that is not an object with properties cannot
 * be described so, and costs the operation when it is required.
 */
function jsonBody(
  doc: JsonObject,
  operation: JsonObject,
  schemas: OperationSchemas,
  notes: string[],
): BodyInputs | undefined {
  if (operation.requestBody === undefined) return undefined;
  const found = dereferenced(doc, operation.requestBody);
  if ('problem' in found) throw new OperationRefusal(`its request body ${found.problem}`);
  const body = found.value;
  const bodyRequired = body.required === true;
  const content = isObject(body.content) ? body.content : {};
  const mediaType = Object.keys(content).find((type) => JSON_MEDIA_TYPE.test(type));
  if (mediaType === undefined) {
    const types = Object.keys(content).join(', ') || 'no media type';
    if (bodyRequired) throw new OperationRefusal(`its request body is ${types}, not JSON`);
    notes.push(`optional request body (${types}) left out: not JSON`);
    return undefined;
  }
  const media = content[mediaType];
  if (!isObject(media) || media.schema === undefined) {
    if (bodyRequired) throw new OperationRefusal('its JSON request body has no schema');
    return undefined;
  }
  const object = objectForm(schemas.convert(media.schema), notes);
  if (object === undefined) {
    if (bodyRequired)
      throw new OperationRefusal(
        'its JSON request body is not an object with named properties, which the gateway sends bodies as',
      );
    notes.push('optional JSON request body left out: not an object with named properties');
    return undefined;
  }
  return { properties: object.properties, required: bodyRequired ? object.required : [] };
}

/** The object a body schema describes: itself, its allOf merged, or the first alternative with properties. */
function objectForm(schema: unknown, notes: string[]): BodyInputs | undefined {
  if (!isObject(schema)) return undefined;
  if (isObject(schema.properties)) {
    const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
    const properties = { ...schema.properties };
    for (const part of Array.isArray(schema.allOf) ? schema.allOf : []) {
      const merged = objectForm(part, notes);
      if (merged) Object.assign(properties, merged.properties), required.push(...merged.required);
    }
    return { properties, required };
  }
  if (Array.isArray(schema.allOf)) {
    const parts = schema.allOf.map((part) => objectForm(part, notes));
    if (parts.some((part) => part === undefined)) return undefined;
    return {
      properties: Object.assign({}, ...parts.map((part) => part!.properties)),
      required: parts.flatMap((part) => part!.required),
    };
  }
  for (const keyword of ['oneOf', 'anyOf'] as const) {
    const alternatives = Array.isArray(schema[keyword]) ? schema[keyword] : [];
    for (const alternative of alternatives) {
      const form = objectForm(alternative, notes);
      if (form) {
        if (alternatives.length > 1) notes.push(`request body: the first object form of its ${keyword} is used`);
        return form;
      }
    }
  }
  return undefined;
}

function describe({ operation, method, path }: OperationInput): string {
  const parts = [operation.summary, operation.description]
    .filter((part): part is string => typeof part === 'string' && part.trim() !== '')
    .map((part) => part.trim());
  const text = parts.join('\n\n');
  return trimmed(text === '' ? `${method} ${path}` : text, MAX_TOOL_DESCRIPTION);
}

/**
 * The scopes of the operation's first security requirement (its own, or the
 * document's): a tool requires all of its scopes, and `security` lists
 * alternatives, of which the first is the one the document prefers.
 */
function scopesOf(doc: JsonObject, operation: JsonObject): string[] {
  const security = Array.isArray(operation.security)
    ? operation.security
    : Array.isArray(doc.security)
      ? doc.security
      : [];
  const first = security.find((requirement) => isObject(requirement) && Object.keys(requirement).length > 0);
  if (!isObject(first)) return [];
  const scopes = Object.values(first).flatMap((list) =>
    Array.isArray(list) ? list.filter((scope): scope is string => typeof scope === 'string' && scope !== '') : [],
  );
  return [...new Set(scopes)];
}

/** Names every candidate, then checks each definition as /gw/schema's would be. */
function named(
  candidates: Candidate[],
  prefix: string,
  skipped: OperationNote[],
): Pick<OpenApiImport, 'tools' | 'notes'> {
  const max = MAX_TOOL_NAME_LENGTH - (prefix === '' ? 0 : prefix.length + 1);
  if (max < 16) throw new Error(`the prefix "${prefix}" leaves fewer than 16 of the 64 characters of a tool name`);
  const { names, renamings } = assignToolNames(candidates, max);
  const renamed = new Map<string, Renaming>(renamings.map((renaming) => [renaming.operation, renaming]));
  const tools: ToolDefinition[] = [];
  const notes: OperationNote[] = [];
  candidates.forEach((candidate, index) => {
    const { operation, operationId } = candidate;
    const checked = ToolDefinitionSchema.safeParse({ name: names[index], ...candidate.definition });
    if (!checked.success) {
      const issues = checked.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
      skipped.push({ operation, operationId, reason: `not a valid tool definition: ${issues}` });
      return;
    }
    tools.push(checked.data);
    const renaming = renamed.get(operation);
    if (renaming)
      notes.push({
        operation,
        operationId,
        reason: `named ${renaming.given}: another operation wants the name ${renaming.wanted}`,
      });
    for (const reason of candidate.notes) notes.push({ operation, operationId, reason });
  });
  return { tools, notes };
}
