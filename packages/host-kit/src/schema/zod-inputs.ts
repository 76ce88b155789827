import { z } from 'zod';
import type { ParameterSource } from '../tool-definition.js';
import type { InputCandidate } from './assemble-inputs.js';
import { isNullable, toInputProperty, type JsonSchema } from './json-schema-property.js';

/** What `input.route`, `input.query` and `input.body` accept: zod v4 objects. */
export type ZodObjectSchema = z.ZodObject;

/**
 * The inputs one zod object contributes, one per property. Optional means
 * zod optional, nullable or with a default (contract 4.6 rule 4); the `input`
 * view of zod's own JSON Schema already leaves optional and defaulted
 * properties out of `required`. `allOptional` is the "nullable body
 * parameter" case: every property becomes optional.
 */
export function zodObjectInputs(
  schema: ZodObjectSchema,
  source: ParameterSource,
  allOptional = false,
): InputCandidate[] {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  const properties = (json.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set(Array.isArray(json.required) ? (json.required as string[]) : []);
  return Object.entries(properties).map(([name, fragment]) => ({
    name,
    source,
    property: toInputProperty(fragment),
    required: !allOptional && required.has(name) && !isNullable(fragment),
  }));
}

/** Whether a value is a zod object schema (checked structurally, so a second copy of zod still passes). */
export function isZodObject(value: unknown): value is ZodObjectSchema {
  return zodTypeOf(value) === 'object';
}

/** The zod def type (`object`, `optional`, `nullable`, ...) of a schema, or null for a non-schema. */
export function zodTypeOf(value: unknown): string | null {
  if (typeof value !== 'object' || value === null || !('_zod' in value)) return null;
  const type = (value as { _zod: { def?: { type?: unknown } } })._zod.def?.type;
  return typeof type === 'string' ? type : null;
}
