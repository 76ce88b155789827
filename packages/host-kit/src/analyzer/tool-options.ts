import { HTTP_METHODS } from '@tollgate/contract';
import { DEFAULT_MAX_RESPONSE_TOKENS, type HttpMethod, type ToolCacheSettings } from '../tool-definition.js';
import { toCacheSettings } from '../cache-settings.js';
import { toParamHeaders, type ParamHeaders } from '../param-headers.js';
import { DiagnosticCode } from './diagnostics.js';
import type { StaticValue } from './static-value.js';

/** The `@AgentTool` options with the spec's defaults (4.6 parameter table) applied. */
export interface ToolOptions {
  description: string;
  allowWrite: boolean;
  maxResponseTokens: number;
  category: string | null;
  requiredScopes: string[];
  httpMethod: HttpMethod | null;
  /** Only when set, so manifests of tools without it stay as they were. */
  cache?: ToolCacheSettings;
  /** Only when true, likewise. */
  confirm?: true;
  /** Applied to the input schema by the analyzer (`markParamHeaders`), never a field of the definition. */
  paramHeaders: ParamHeaders | null;
}

export interface OptionProblem {
  code: DiagnosticCode;
  message: string;
}

const VERBS = new Set<string>(HTTP_METHODS);

/** Checks the statically read options object; every problem is returned, not just the first. */
export function toToolOptions(value: StaticValue | undefined): { options: ToolOptions; problems: OptionProblem[] } {
  const problems: OptionProblem[] = [];
  const problem = (code: DiagnosticCode, message: string) => problems.push({ code, message });
  const object = isRecord(value) ? value : {};
  if (value !== undefined && !isRecord(value))
    problem(DiagnosticCode.NonStaticArgument, '@AgentTool takes an object literal');

  const description = typeof object.description === 'string' ? object.description.trim() : '';
  if (description === '') problem(DiagnosticCode.MissingDescription, '@AgentTool needs a non-empty description');

  const allowWrite = object.allowWrite ?? false;
  if (typeof allowWrite !== 'boolean') problem(DiagnosticCode.NonStaticArgument, 'allowWrite must be true or false');

  const maxResponseTokens = object.maxResponseTokens ?? DEFAULT_MAX_RESPONSE_TOKENS;
  if (typeof maxResponseTokens !== 'number' || !Number.isInteger(maxResponseTokens) || maxResponseTokens <= 0) {
    problem(DiagnosticCode.InvalidMaxResponseTokens, 'maxResponseTokens must be a positive integer');
  }

  const category = object.category ?? null;
  if (category !== null && typeof category !== 'string')
    problem(DiagnosticCode.NonStaticArgument, 'category must be a string or null');

  const requiredScopes = object.requiredScopes ?? [];
  const scopesOk = Array.isArray(requiredScopes) && requiredScopes.every((scope) => typeof scope === 'string');
  if (!scopesOk) problem(DiagnosticCode.NonStaticArgument, 'requiredScopes must be an array of strings or null');

  const httpMethod = object.httpMethod ?? null;
  const verb = typeof httpMethod === 'string' ? httpMethod.toUpperCase() : null;
  if (httpMethod !== null && (verb === null || !VERBS.has(verb))) {
    problem(DiagnosticCode.NonStaticArgument, 'httpMethod must be one of GET, POST, PUT, PATCH, DELETE or null');
  }

  const cache = toCacheSettings(object.cache);
  if (cache.problem !== null) problem(DiagnosticCode.NonStaticArgument, cache.problem);

  const confirm = object.confirm ?? false;
  if (typeof confirm !== 'boolean') problem(DiagnosticCode.NonStaticArgument, 'confirm must be true or false');

  const paramHeaders = toParamHeaders(object.paramHeaders);
  if (paramHeaders.problem !== null) problem(DiagnosticCode.NonStaticArgument, paramHeaders.problem);

  return {
    options: {
      description: description,
      allowWrite: allowWrite === true,
      maxResponseTokens: typeof maxResponseTokens === 'number' ? maxResponseTokens : DEFAULT_MAX_RESPONSE_TOKENS,
      category: typeof category === 'string' ? category : null,
      requiredScopes: scopesOk ? [...(requiredScopes as string[])] : [],
      httpMethod: verb !== null && VERBS.has(verb) ? (verb as HttpMethod) : null,
      ...(cache.settings ? { cache: cache.settings } : {}),
      ...(confirm === true ? { confirm: true as const } : {}),
      paramHeaders: paramHeaders.headers,
    },
    problems,
  };
}

function isRecord(value: StaticValue | undefined): value is { [key: string]: StaticValue } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
