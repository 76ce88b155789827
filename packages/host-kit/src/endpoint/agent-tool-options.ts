import type { z } from 'zod';
import type { InputCandidate } from '../schema/assemble-inputs.js';
import type { InputProperty, ToolCacheSettings } from '../tool-definition.js';
import { toCacheSettings } from '../cache-settings.js';
import { toParamHeaders, type ParamHeaders } from '../param-headers.js';
import {
  DEFAULT_MAX_RESPONSE_TOKENS,
  TOOL_NAME_PATTERN,
  type AgentToolSettings,
  type HttpMethod,
} from '../tool-definition.js';
import { HTTP_METHODS } from './resolve-verb.js';
import { isZodObject, zodObjectInputs, zodTypeOf } from '../schema/zod-inputs.js';

/** Options of `withAgentTool` (contract 4.6: the endpoint form adds a required name). */
export interface AgentToolOptions extends AgentToolSettings {
  /** Tool identifier the agent calls; the MCP tool-name rule `^[A-Za-z0-9_.-]{1,128}$`. */
  name: string;
  /** Where the agent's inputs go. `body` may be `.optional()`/`.nullable()`: all its properties become optional. */
  // `z.ZodObject` spelt out, not the package's private alias for it: a private name inside this inline literal
  // is a finding API Extractor cannot place, so the API report would name the built file's line.
  input?: {
    route?: z.ZodObject;
    query?: z.ZodObject;
    body?: z.ZodObject | z.ZodOptional<z.ZodObject> | z.ZodNullable<z.ZodObject>;
  };
}

/** The validated, frozen form a marked handler carries. */
export interface AgentToolMetadata {
  readonly name: string;
  readonly description: string;
  readonly allowWrite: boolean;
  readonly maxResponseTokens: number;
  readonly category: string | null;
  readonly requiredScopes: readonly string[];
  readonly httpMethod: HttpMethod | null;
  readonly cache: ToolCacheSettings | null;
  readonly confirm: boolean;
  readonly paramHeaders: ParamHeaders | null;
  /** Typed route parameters by name; template parameters missing here are strings. */
  readonly routeInputs: ReadonlyMap<string, InputProperty>;
  readonly queryAndBodyInputs: readonly InputCandidate[];
}

/** Validates options once, at registration, so a mistake fails startup (contract 7). */
export function toAgentToolMetadata(options: AgentToolOptions): AgentToolMetadata {
  if (typeof options !== 'object' || options === null) fail('options must be an object');
  const name = requireText(options.name, 'name');
  if (!TOOL_NAME_PATTERN.test(name)) {
    fail(`name "${name}" must match ${TOOL_NAME_PATTERN} (the MCP tool-name rule)`);
  }
  const description = requireText(options.description, 'description');
  const input = options.input ?? {};
  return Object.freeze({
    name,
    description,
    allowWrite: optionalBoolean(options.allowWrite, 'allowWrite', name),
    maxResponseTokens: maxResponseTokensOf(options.maxResponseTokens, name),
    category: categoryOf(options.category, name),
    requiredScopes: Object.freeze(scopesOf(options.requiredScopes, name)),
    httpMethod: httpMethodOf(options.httpMethod, name),
    cache: cacheOf(options.cache, name),
    confirm: optionalBoolean(options.confirm, 'confirm', name),
    paramHeaders: paramHeadersOf(options.paramHeaders, name),
    routeInputs: routeInputsOf(input.route, name),
    queryAndBodyInputs: Object.freeze([...queryInputsOf(input.query, name), ...bodyInputsOf(input.body, name)]),
  });
}

function fail(message: string): never {
  throw new TypeError(`withAgentTool: ${message}`);
}

function requireText(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.trim() === '') fail(`${field} is required and must not be blank`);
  return value;
}

function optionalBoolean(value: unknown, field: string, tool: string): boolean {
  if (value === undefined) return false;
  if (typeof value !== 'boolean') fail(`${field} of tool "${tool}" must be a boolean`);
  return value;
}

function maxResponseTokensOf(value: unknown, tool: string): number {
  if (value === undefined) return DEFAULT_MAX_RESPONSE_TOKENS;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
    fail(`maxResponseTokens of tool "${tool}" must be a positive integer, got ${String(value)}`);
  }
  return value;
}

function categoryOf(value: unknown, tool: string): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || value.trim() === '')
    fail(`category of tool "${tool}" must be a non-blank string or null`);
  return value;
}

function scopesOf(value: unknown, tool: string): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || !value.every((scope) => typeof scope === 'string' && scope.trim() !== '')) {
    fail(`requiredScopes of tool "${tool}" must be an array of non-blank strings or null`);
  }
  // A copy: the caller keeps its array, and changing it later has no effect (contract 4.6).
  return [...value];
}

function httpMethodOf(value: unknown, tool: string): HttpMethod | null {
  if (value === undefined || value === null) return null;
  const verb = typeof value === 'string' ? value.toUpperCase() : '';
  if (!(HTTP_METHODS as readonly string[]).includes(verb)) {
    fail(`httpMethod of tool "${tool}" must be one of ${HTTP_METHODS.join(', ')} or null, got ${String(value)}`);
  }
  return verb as HttpMethod;
}

function cacheOf(value: unknown, tool: string): ToolCacheSettings | null {
  const { settings, problem } = toCacheSettings(value);
  if (problem !== null) fail(`${problem} (tool "${tool}")`);
  return settings;
}

function paramHeadersOf(value: unknown, tool: string): ParamHeaders | null {
  const { headers, problem } = toParamHeaders(value);
  if (problem !== null) fail(`${problem} (tool "${tool}")`);
  return headers;
}

function routeInputsOf(schema: unknown, tool: string): ReadonlyMap<string, InputProperty> {
  if (schema === undefined) return new Map();
  if (!isZodObject(schema)) fail(`input.route of tool "${tool}" must be a zod object`);
  return new Map(zodObjectInputs(schema, 'route').map(({ name, property }) => [name, property]));
}

function queryInputsOf(schema: unknown, tool: string): InputCandidate[] {
  if (schema === undefined) return [];
  if (!isZodObject(schema)) fail(`input.query of tool "${tool}" must be a zod object`);
  return zodObjectInputs(schema, 'query');
}

function bodyInputsOf(schema: unknown, tool: string): InputCandidate[] {
  if (schema === undefined) return [];
  if (isZodObject(schema)) return zodObjectInputs(schema, 'body');
  // An optional or nullable body: every property becomes optional (contract 4.6 rule 4).
  const wrapperType = zodTypeOf(schema);
  const inner = (schema as { _zod?: { def?: { innerType?: unknown } } } | undefined)?._zod?.def?.innerType;
  if ((wrapperType === 'optional' || wrapperType === 'nullable') && isZodObject(inner)) {
    return zodObjectInputs(inner, 'body', true);
  }
  return fail(`input.body of tool "${tool}" must be a zod object, optionally .optional() or .nullable()`);
}
