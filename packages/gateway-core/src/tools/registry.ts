import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import {
  parseToolDefinitions,
  schemaDialect,
  type InputSchema,
  type JsonSchemaDialect,
  type ToolDefinition,
  type ToolDefinitionProblem,
} from './definition.js';

/** The JSON Schema agents are shown for a tool, and the one its arguments are checked against. */
export type ToolInputSchema = Record<string, unknown> & {
  type: 'object';
  properties: Record<string, unknown>;
  required: string[];
};

export interface RegisteredTool {
  readonly definition: ToolDefinition;
  readonly inputSchema: ToolInputSchema;
  /** Compiled once, when the registry is built; calls only run it. */
  readonly validateArguments: ValidateFunction;
}

/** The downstream's tools, by name, ready to list, authorize and call. */
export class ToolRegistry {
  readonly #tools: ReadonlyMap<string, RegisteredTool>;

  constructor(tools: Iterable<RegisteredTool>) {
    this.#tools = new Map([...tools].map((tool) => [tool.definition.name, tool]));
  }

  get(name: string): RegisteredTool | undefined {
    return this.#tools.get(name);
  }

  /** In the order the downstream served them. */
  list(): RegisteredTool[] {
    return [...this.#tools.values()];
  }

  get size(): number {
    return this.#tools.size;
  }
}

export interface BuiltToolRegistry {
  registry: ToolRegistry;
  /** Entries left out, one per bad definition. */
  problems: ToolDefinitionProblem[];
}

/**
 * Builds the registry from the JSON served at /gw/schema. Bad entries are
 * left out and reported, including input schemas that ajv cannot compile.
 */
export function buildToolRegistry(schemaJson: unknown): BuiltToolRegistry {
  const { tools, problems } = parseToolDefinitions(schemaJson);
  const compilers = new Compilers();
  const registered: RegisteredTool[] = [];
  const onFirstCall = tools.length > COMPILE_AT_BUILD_MAX;
  tools.forEach((definition) => {
    const inputSchema = effectiveInputSchema(definition.inputSchema);
    try {
      const ajv = compilers.for(schemaDialect(definition.inputSchema));
      registered.push({
        definition,
        inputSchema,
        validateArguments: onFirstCall ? compiledOnFirstCall(ajv, inputSchema) : ajv.compile(inputSchema),
      });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      problems.push({
        index: indexOf(schemaJson, definition.name),
        name: definition.name,
        issues: [{ path: 'inputSchema', message }],
      });
    }
  });
  return { registry: new ToolRegistry(registered), problems: problems.sort((a, b) => a.index - b.index) };
}

/**
 * Up to this many tools, every input schema is compiled when the registry is
 * built, so one that cannot compile is reported then. Past it (a whole
 * imported API: GitHub's is 1,200 tools, about 11 ms each) compiling all
 * would block the event loop for seconds on every load and hold every
 * compiled function in memory, though an agent calls a few: each schema is
 * checked against its dialect's meta-schema at build (about 1 ms), and
 * compiled on the tool's first call.
 */
export const COMPILE_AT_BUILD_MAX = 200;

/** A validator that compiles on its first call; a schema that then fails to compile refuses every call, naming why. */
function compiledOnFirstCall(ajv: Ajv, schema: ToolInputSchema): ValidateFunction {
  if (!ajv.validateSchema(schema)) throw new Error(ajv.errorsText(ajv.errors));
  let compiled: ValidateFunction | undefined;
  let failure: ErrorObject | undefined;
  const validate = ((data: unknown) => {
    if (compiled === undefined && failure === undefined) {
      try {
        compiled = ajv.compile(schema);
      } catch (error) {
        const message =
          `cannot be checked: the tool's input schema does not compile ` +
          `(${error instanceof Error ? error.message : String(error)})`;
        failure = { instancePath: '', schemaPath: '#', keyword: 'compile', params: {}, message };
      }
    }
    if (compiled === undefined) {
      validate.errors = [failure as ErrorObject];
      return false;
    }
    const valid = compiled(data);
    validate.errors = compiled.errors;
    return valid;
  }) as ValidateFunction;
  validate.errors = null;
  validate.schema = schema;
  return validate;
}

const AJV_OPTIONS: Options = { allErrors: true, strict: false, logger: false };

/**
 * One ajv per dialect and per build, made when first needed: ajv caches every
 * compiled schema, so a long-lived instance would grow with each registry
 * refresh. 2020-12 (also for schemas without `$schema`) and draft-07 differ
 * in their keywords (`prefixItems`, `unevaluatedProperties`, `$defs` vs
 * `items` arrays, `additionalItems`), so each is compiled by its own.
 */
class Compilers {
  readonly #byDialect = new Map<JsonSchemaDialect, Ajv>();

  for(dialect: JsonSchemaDialect): Ajv {
    let ajv = this.#byDialect.get(dialect);
    if (!ajv) {
      ajv = dialect === 'draft-07' ? new Ajv(AJV_OPTIONS) : new Ajv2020(AJV_OPTIONS);
      this.#byDialect.set(dialect, ajv);
    }
    return ajv;
  }
}

/**
 * The schema as enforced: `description: null` (allowed by contract 2.5, invalid
 * JSON Schema) is dropped wherever it is, nested properties and items too, so
 * no MCP client is ever shown one; and unknown arguments are refused unless the
 * definition says otherwise: an argument the tool does not declare is most
 * likely a misspelt one, and forwarding without it would silently change the
 * call, so the agent is told instead.
 */
function effectiveInputSchema(schema: InputSchema): ToolInputSchema {
  const properties = Object.fromEntries(
    Object.entries(schema.properties).map(([name, property]) => [name, withoutNullDescriptions(property)]),
  );
  return { additionalProperties: false, ...schema, properties, required: schema.required } as ToolInputSchema;
}

/** A copy of a schema fragment without any `description: null`; the tree is a tool author's, so plain JSON. */
function withoutNullDescriptions<T>(value: T): T {
  if (Array.isArray(value)) return value.map(withoutNullDescriptions) as T;
  if (typeof value !== 'object' || value === null) return value;
  const copy: Record<string, unknown> = {};
  for (const [keyword, inner] of Object.entries(value)) {
    if (keyword === 'description' && inner === null) continue;
    copy[keyword] = withoutNullDescriptions(inner);
  }
  return copy as T;
}

function indexOf(schemaJson: unknown, name: string): number {
  return Array.isArray(schemaJson) ? schemaJson.findIndex((entry) => entry?.name === name) : -1;
}
