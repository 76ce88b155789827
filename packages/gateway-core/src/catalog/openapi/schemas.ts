import { resolvePointer } from '../../util/json-pointer.js';
import { isObject, type JsonObject, type OpenApiVersion } from './document.js';

/**
 * Turns an operation's OpenAPI schemas into the JSON Schema (2020-12) of a
 * tool's input. `$ref`s are inlined, so agents see whole schemas; a `$ref`
 * back into a schema being inlined (a cycle) becomes a `$ref` into the
 * input's `$defs` instead, written once. What one operation may produce is
 * bounded in size and depth, so a document whose schemas would blow up when
 * inlined costs that operation, never the gateway's memory.
 */

export interface SchemaLimits {
  /** Roughly the JSON size of one operation's input schema. */
  maxBytes: number;
  /** How deeply schemas may nest. */
  maxDepth: number;
}

export const DEFAULT_SCHEMA_LIMITS: SchemaLimits = { maxBytes: 256 * 1024, maxDepth: 64 };

/** Descriptions inside schemas are cut to this many characters. */
export const MAX_SCHEMA_DESCRIPTION = 300;

/** Why one operation cannot be imported (the others still are). */
export class OperationRefusal extends Error {
  override readonly name = 'OperationRefusal';
}

/** Kept as they are: JSON Schema keywords with the same meaning in OpenAPI 3.0 and 3.1. */
const PLAIN_KEYWORDS = [
  'type',
  'enum',
  'const',
  'format',
  'default',
  'title',
  'minimum',
  'maximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'pattern',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'maxProperties',
  'deprecated',
];
const SCHEMA_LIST_KEYWORDS = ['allOf', 'oneOf', 'anyOf', 'prefixItems'];
const SCHEMA_KEYWORDS = ['not', 'items', 'additionalProperties', 'contains'];

const ANY_TYPE = ['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'];

export class OperationSchemas {
  readonly #document: JsonObject;
  readonly #version: OpenApiVersion;
  readonly #limits: SchemaLimits;
  #bytes = 0;
  /** The `$ref`s being inlined now, innermost last. */
  readonly #inlining: string[] = [];
  /** `$ref` → its name under `$defs`, for those met inside themselves. */
  readonly #defNames = new Map<string, string>();

  constructor(document: JsonObject, version: OpenApiVersion, limits: SchemaLimits) {
    this.#document = document;
    this.#version = version;
    this.#limits = limits;
  }

  /** One schema as JSON Schema; throws an OperationRefusal when it leads nowhere or is too big or deep. */
  convert(schema: unknown): unknown {
    return this.#convert(schema, 0);
  }

  /** The `$defs` the converted schemas point into (recursive schemas), or undefined when none. */
  defs(): JsonObject | undefined {
    if (this.#defNames.size === 0) return undefined;
    const defs: JsonObject = {};
    // Writing one definition may find more cycles: loop until every named one is written.
    for (let written = 0; written < this.#defNames.size; ) {
      for (const [ref, name] of [...this.#defNames]) {
        if (name in defs) continue;
        this.#inlining.push(ref);
        defs[name] = this.#convert(resolvePointer(this.#document, ref), 1);
        this.#inlining.pop();
        written++;
      }
    }
    return defs;
  }

  #convert(schema: unknown, depth: number): unknown {
    if (depth > this.#limits.maxDepth)
      throw new OperationRefusal(`its schemas nest deeper than ${this.#limits.maxDepth} levels`);
    if (typeof schema === 'boolean') return schema;
    if (!isObject(schema)) throw new OperationRefusal('a schema is not an object');
    if (typeof schema.$ref === 'string') return this.#reference(schema, depth);
    const out: JsonObject = {};
    for (const keyword of PLAIN_KEYWORDS) if (schema[keyword] !== undefined) out[keyword] = schema[keyword];
    // Documents hold patterns of other regex flavours; one that is not
    // a valid Unicode JS regex would refuse every call of its tool.
    if (out.pattern !== undefined && !isUnicodeRegExp(out.pattern)) delete out.pattern;
    if (typeof schema.description === 'string' && schema.description.trim() !== '')
      out.description = trimmed(schema.description, MAX_SCHEMA_DESCRIPTION);
    if (Array.isArray(schema.examples)) out.examples = schema.examples.slice(0, 3);
    for (const keyword of SCHEMA_LIST_KEYWORDS) {
      const list = schema[keyword];
      if (Array.isArray(list)) out[keyword] = list.map((item) => this.#convert(item, depth + 1));
    }
    for (const keyword of SCHEMA_KEYWORDS)
      if (schema[keyword] !== undefined) out[keyword] = this.#convert(schema[keyword], depth + 1);
    if (isObject(schema.properties)) {
      const properties: JsonObject = {};
      for (const [name, property] of Object.entries(schema.properties))
        properties[name] = this.#convert(property, depth + 1);
      out.properties = properties;
    }
    if (Array.isArray(schema.required)) out.required = schema.required.filter((name) => typeof name === 'string');
    if (this.#version === '3.0') fromOpenApi30(schema, out);
    this.#count(out);
    return out;
  }

  #reference(schema: JsonObject, depth: number): unknown {
    const ref = schema.$ref as string;
    if (!ref.startsWith('#'))
      throw new OperationRefusal(`$ref ${JSON.stringify(ref)} points outside the document and was not resolved`);
    if (this.#inlining.includes(ref)) return { $ref: `#/$defs/${this.#defName(ref)}` };
    const target = resolvePointer(this.#document, ref);
    if (target === undefined) throw new OperationRefusal(`$ref ${JSON.stringify(ref)} leads nowhere`);
    this.#inlining.push(ref);
    try {
      const resolved = this.#convert(target, depth + 1);
      // 3.1 lets a $ref carry its own description, which says more about this use than the target's.
      return typeof schema.description === 'string' && isObject(resolved)
        ? { ...resolved, description: trimmed(schema.description, MAX_SCHEMA_DESCRIPTION) }
        : resolved;
    } finally {
      this.#inlining.pop();
    }
  }

  #defName(ref: string): string {
    let name = this.#defNames.get(ref);
    if (name === undefined) {
      const base = (ref.split('/').at(-1) ?? 'schema').replace(/[^A-Za-z0-9_.-]/g, '_') || 'schema';
      const used = new Set(this.#defNames.values());
      name = base;
      for (let n = 2; used.has(name); n++) name = `${base}_${n}`;
      this.#defNames.set(ref, name);
    }
    return name;
  }

  /** A rough JSON size of what was produced: keys and texts, counted as they are made. */
  #count(out: JsonObject): void {
    for (const [key, value] of Object.entries(out)) {
      this.#bytes += key.length + 4;
      if (typeof value === 'string') this.#bytes += value.length;
      else if (Array.isArray(value) && key !== 'allOf' && key !== 'oneOf' && key !== 'anyOf' && key !== 'prefixItems')
        this.#bytes += JSON.stringify(value).length;
    }
    if (this.#bytes > this.#limits.maxBytes) {
      throw new OperationRefusal(
        `its input schema would be over ${Math.round(this.#limits.maxBytes / 1024)} KiB once its $refs are resolved`,
      );
    }
  }
}

/** OpenAPI 3.0's own keywords in their JSON Schema 2020-12 form. */
function fromOpenApi30(schema: JsonObject, out: JsonObject): void {
  if (schema.nullable === true) {
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  }
  for (const [flag, bound] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    if (schema[flag] === true && typeof schema[bound] === 'number') {
      out[flag] = schema[bound];
      delete out[bound];
    }
  }
  if (schema.example !== undefined && out.examples === undefined) out.examples = [schema.example];
}

/**
 * A tool input must say its type (contract 2.5): a schema without one gets
 * the types its alternatives allow, or every type.
 */
export function withType(schema: unknown): JsonObject {
  if (!isObject(schema)) return { type: ANY_TYPE };
  if (schema.type !== undefined || schema.$ref !== undefined) return schema;
  return { ...schema, type: typesOf(schema) };
}

function typesOf(schema: JsonObject): string | string[] {
  if (isObject(schema.properties)) return 'object';
  if (schema.items !== undefined) return 'array';
  const branches = [...asList(schema.oneOf), ...asList(schema.anyOf)];
  const types = new Set<string>();
  for (const branch of branches) {
    const type = isObject(branch) ? branch.type : undefined;
    if (type === undefined) return ANY_TYPE;
    for (const one of [type].flat()) if (typeof one === 'string') types.add(one);
  }
  if (Array.isArray(schema.enum))
    for (const value of schema.enum) types.add(value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value);
  return types.size === 0 ? ANY_TYPE : [...types];
}

function isUnicodeRegExp(pattern: unknown): boolean {
  try {
    return typeof pattern === 'string' && new RegExp(pattern, 'u') instanceof RegExp;
  } catch {
    return false;
  }
}

function asList(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** At most `max` characters, ending with … when cut. */
export function trimmed(text: string, max: number): string {
  const clean = text.trim();
  return clean.length <= max ? clean : `${clean.slice(0, max - 1).trimEnd()}…`;
}
