import type { InputProperty } from '../tool-definition.js';

/** A JSON Schema fragment as produced by `z.toJSONSchema` or the analyzer. */
export type JsonSchema = { [keyword: string]: unknown };

const SCALAR_TYPES = new Set(['integer', 'number', 'boolean']);
const STRUCTURED_TYPES = new Set(['array', 'object']);

/**
 * One input's schema per contract 4.6 rule 3: `integer`, `number` and `boolean`
 * stay, every other scalar becomes `string`, and a nullable type maps like
 * its underlying type with `null` beside it (`["string", "null"]`), so the
 * gateway lets an agent send the `null` the handler accepts. Arrays and
 * nested objects keep their JSON Schema shape (`items`, `properties`, ...):
 * an agent told "string" would send a string where the API expects a structure.
 */
export function toInputProperty(fragment: JsonSchema): InputProperty {
  const underlying = withoutNull(fragment);
  const description = describe(fragment) ?? describe(underlying) ?? null;
  const type = singleType(underlying);
  const typed = (name: string): string | string[] => (isNullable(fragment) ? [name, 'null'] : name);
  if (type !== null && STRUCTURED_TYPES.has(type)) {
    const { $schema: _schema, anyOf: _anyOf, description: _description, ...shape } = underlying;
    return { ...(withoutImplicitIntegerBounds(shape) as JsonSchema), type: typed(type), description } as InputProperty;
  }
  return { type: typed(type !== null && SCALAR_TYPES.has(type) ? type : 'string'), description } as InputProperty;
}

/** The schema with `null` allowed beside its one type (a TypeScript `T | null`). */
export function withNullType(schema: JsonSchema): JsonSchema {
  return typeof schema.type === 'string' ? { ...schema, type: [schema.type, 'null'] } : schema;
}

/** Whether the fragment admits `null`: `type: [T, 'null']` or `anyOf` with a null member. */
export function isNullable(fragment: JsonSchema): boolean {
  const { type, anyOf } = fragment;
  if (Array.isArray(type)) return type.includes('null');
  if (Array.isArray(anyOf)) return anyOf.some((member) => isNullType(member));
  return type === 'null';
}

/** The fragment with its `null` alternative removed, when there is exactly one other. */
function withoutNull(fragment: JsonSchema): JsonSchema {
  const { type, anyOf } = fragment;
  if (Array.isArray(type)) {
    const others = type.filter((t) => t !== 'null');
    return others.length === 1 ? { ...fragment, type: others[0] } : fragment;
  }
  if (Array.isArray(anyOf)) {
    const others = anyOf.filter((member) => !isNullType(member));
    if (others.length === 1 && others.length < anyOf.length) {
      const { anyOf: _anyOf, ...outer } = fragment;
      return { ...outer, ...(others[0] as JsonSchema) };
    }
  }
  return fragment;
}

function singleType(fragment: JsonSchema): string | null {
  return typeof fragment.type === 'string' ? fragment.type : null;
}

function describe(fragment: JsonSchema): string | null {
  return typeof fragment.description === 'string' ? fragment.description : null;
}

function isNullType(member: unknown): boolean {
  return typeof member === 'object' && member !== null && (member as JsonSchema).type === 'null';
}

/**
 * zod writes the safe-integer range on every `z.int()` (`minimum:
 * -(2^53-1)`, `maximum: 2^53-1`). Those bounds are not the API's rules, and
 * the annotation form has no way to state them, so both forms drop them to
 * serve identical definitions. Bounds the author chose stay.
 */
function withoutImplicitIntegerBounds(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutImplicitIntegerBounds);
  if (typeof schema !== 'object' || schema === null) return schema;
  const result: JsonSchema = {};
  for (const [keyword, value] of Object.entries(schema)) {
    if (keyword === 'minimum' && value === Number.MIN_SAFE_INTEGER) continue;
    if (keyword === 'maximum' && value === Number.MAX_SAFE_INTEGER) continue;
    result[keyword] = withoutImplicitIntegerBounds(value);
  }
  return result;
}
