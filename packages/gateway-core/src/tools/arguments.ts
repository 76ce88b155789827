import type { ErrorObject } from 'ajv';
import { InvalidArgumentsError, type InvalidField } from '../errors.js';
import type { RegisteredTool } from './registry.js';

/** Enough to fix a call; a hostile input cannot make the error itself huge. */
const MAX_REPORTED_FIELDS = 20;

/**
 * The arguments of a tools/call, checked against the tool's compiled input
 * schema. Absent arguments mean `{}`. Nothing is coerced, defaulted or
 * stripped: what is validated is exactly what gets forwarded. Refusals are
 * 400 / -32602 with one entry per problem, and nothing is forwarded.
 */
export function validateToolArguments(tool: RegisteredTool, args: unknown): Record<string, unknown> {
  const value = args ?? {};
  const name = tool.definition.name;
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new InvalidArgumentsError(`Invalid arguments for tool ${name}: arguments must be an object`, [
      { path: '', message: 'must be an object' },
    ]);
  }
  if (tool.validateArguments(value)) return value as Record<string, unknown>;
  const fields = (tool.validateArguments.errors ?? []).slice(0, MAX_REPORTED_FIELDS).map(toField);
  const summary = fields.map((field) => (field.path ? `${field.path} ${field.message}` : field.message)).join('; ');
  throw new InvalidArgumentsError(`Invalid arguments for tool ${name}: ${summary}`, fields);
}

function toField(error: ErrorObject): InvalidField {
  const base = error.instancePath.split('/').slice(1).map(unescapePointer);
  if (error.keyword === 'required')
    return { path: [...base, String(error.params.missingProperty)].join('.'), message: 'is required' };
  if (error.keyword === 'additionalProperties') {
    return {
      path: [...base, String(error.params.additionalProperty)].join('.'),
      message: 'is not an input of this tool',
    };
  }
  return { path: base.join('.'), message: error.message ?? error.keyword };
}

function unescapePointer(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}
