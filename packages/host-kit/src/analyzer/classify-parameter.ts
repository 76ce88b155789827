import { Node, type ParameterDeclaration, type Type, type TypeNode } from 'ts-morph';
import type { FrameworkBinding, ParameterBinding, ScalarKind } from '../manifest.js';
import type { InputCandidate } from '../schema/assemble-inputs.js';
import { toInputProperty, withNullType, type JsonSchema } from '../schema/json-schema-property.js';
import { DiagnosticCode } from './diagnostics.js';
import { isLibraryType, propertiesOf, shapeOf, type ShapeContext } from './json-shape.js';

/** What one method parameter becomes: how to bind it, and what the agent sees of it. */
export interface ClassifiedParameter {
  binding: ParameterBinding;
  inputs: InputCandidate[];
}

export type Classification =
  | { ok: true; parameter: ClassifiedParameter }
  | { ok: false; code: DiagnosticCode; message: string };

export interface ActionContext extends ShapeContext {
  routeParams: ReadonlySet<string>;
  /** `@param` texts of the method's TSDoc, by parameter name. */
  paramDocs: ReadonlyMap<string, string>;
}

type Source = 'route' | 'query' | 'body' | 'header' | 'services';

const MARKERS: Record<string, Source> = {
  FromRoute: 'route',
  FromQuery: 'query',
  FromBody: 'body',
  FromHeader: 'header',
  FromServices: 'services',
};

/**
 * Contract 4.6's classification: an explicit marker wins; a name matching a route
 * segment is route; a simple type is query; a class, interface or object is
 * the body, its public properties becoming inputs. Framework parameters,
 * services and headers are bound but never shown to the agent.
 */
export function classifyParameter(parameter: ParameterDeclaration, context: ActionContext): Classification {
  const nameNode = parameter.getNameNode();
  const type = parameter.getType();
  const marker = markerOf(parameter.getTypeNode(), context);
  if (parameter.isRestParameter())
    return unbindable(`rest parameter "${parameter.getName()}" cannot be bound from a request`);
  if (!marker) {
    const framework = frameworkKindOf(type);
    if (framework) return bound({ kind: framework });
  }
  if (marker === 'services') return bound({ kind: 'service', token: serviceToken(type) });

  const shape = shapeOf(type, { ...context, location: parameter });
  if (!shape.ok) {
    return fail(
      DiagnosticCode.NotJsonType,
      `parameter "${parameter.getName()}" is ${shape.reason}, which cannot be sent as JSON`,
    );
  }
  const optional = parameter.hasQuestionToken() || parameter.hasInitializer() || shape.nullable;
  const structured = shape.kind === 'array' || shape.kind === 'object';

  if (!Node.isIdentifier(nameNode)) {
    if (shape.kind === 'object' && (marker === null || marker === 'body'))
      return wholeBody(parameter, type, optional, context);
    return unbindable(`destructured parameter "${parameter.getName()}" can only be the request body`);
  }
  const name = nameNode.getText();
  const description = context.paramDocs.get(name) ?? null;
  const input = (source: InputCandidate['source'], schema: JsonSchema, required: boolean): InputCandidate => {
    const typed = shape.acceptsNull ? withNullType(schema) : schema;
    return {
      name,
      source,
      property: toInputProperty(description === null ? typed : { ...typed, description }),
      required,
    };
  };

  if (marker === 'route' || (marker === null && context.routeParams.has(name))) {
    if (!context.routeParams.has(name)) {
      return fail(
        DiagnosticCode.RouteParameterWithoutSegment,
        `parameter "${name}" is marked FromRoute but the route has no ":${name}" segment`,
      );
    }
    if (structured) return unbindable(`route parameter "${name}" must be a simple type`);
    return bound({ kind: 'route', name, scalar: shape.kind as ScalarKind }, input('route', shape.schema, true));
  }
  if (marker === 'header') {
    if (structured) return unbindable(`header parameter "${name}" must be a simple type`);
    return bound({ kind: 'header', name, header: headerNameOf(name), scalar: shape.kind as ScalarKind, optional });
  }
  if (marker === 'query' || (marker === null && !structured)) {
    const list = listElementKind(shape.schema);
    if (shape.kind === 'object' || (shape.kind === 'array' && list === null)) {
      return unbindable(`query parameter "${name}" must be a simple type or an array of simple types`);
    }
    const scalar = list ?? (shape.kind as ScalarKind);
    return bound(
      { kind: 'query', name, scalar, list: list !== null, optional },
      input('query', shape.schema, !optional),
    );
  }
  if (shape.kind === 'object') return wholeBody(parameter, type, optional, context);
  return bound({ kind: 'body-field', name, value: shape.kind, optional }, input('body', shape.schema, !optional));
}

/** An object parameter is the whole JSON body; each public property is an input. */
function wholeBody(
  parameter: ParameterDeclaration,
  type: Type,
  optional: boolean,
  context: ActionContext,
): Classification {
  const read = propertiesOf(type.getNonNullableType(), { ...context, location: parameter });
  if (!read.ok) {
    return fail(
      DiagnosticCode.NotJsonType,
      `parameter "${parameter.getName()}" is ${read.reason}, which cannot be sent as JSON`,
    );
  }
  const inputs = read.properties.map(({ name, shape, optional: propertyOptional, description }) => ({
    name,
    source: 'body' as const,
    property: toInputProperty(describedAs(shape.acceptsNull ? withNullType(shape.schema) : shape.schema, description)),
    // A nullable body parameter makes all its properties optional (contract 4.6 rule 4).
    required: !optional && !propertyOptional,
  }));
  const fields = read.properties.map(({ name, shape, optional: propertyOptional }) => ({
    name,
    kind: shape.kind,
    optional: propertyOptional,
  }));
  return bound({ kind: 'body', optional, fields }, ...inputs);
}

/** The marker written on the parameter's type, following user aliases (`type OrderId = FromRoute<string>`). */
function markerOf(typeNode: TypeNode | undefined, context: ActionContext, depth = 0): Source | null {
  if (!typeNode || depth > 8) return null;
  if (Node.isUnionTypeNode(typeNode)) {
    for (const member of typeNode.getTypeNodes()) {
      const marker = markerOf(member, context, depth + 1);
      if (marker) return marker;
    }
    return null;
  }
  if (!Node.isTypeReference(typeNode)) return null;
  const typeName = typeNode.getTypeName();
  const kitName = context.kit.kitNameOf(typeName);
  if (kitName !== null) return MARKERS[kitName] ?? null;
  const symbol = typeName.getSymbol();
  const declaration = (symbol?.isAlias() ? symbol.getAliasedSymbol() : symbol)?.getDeclarations()[0];
  if (!Node.isTypeAliasDeclaration(declaration) || declaration.getTypeParameters().length > 0) return null;
  return markerOf(declaration.getTypeNode(), context, depth + 1);
}

type FrameworkKind = FrameworkBinding['kind'];

const HONO_TYPES: Record<string, FrameworkKind> = { Context: 'context', HonoRequest: 'request' };
const PLATFORM_TYPES: Record<string, FrameworkKind> = {
  Request: 'raw-request',
  Response: 'response',
  AbortSignal: 'signal',
  ReadableStream: 'body-stream',
};

/**
 * Parameters the kit supplies itself (contract 4.6 rule 1). Matched on library
 * declarations only, never a user class of the same name. An optional one
 * (`c?: Context`, `ctx: Context | undefined`) is still one: under
 * `strictNullChecks` its type is a union with `undefined`, which is set aside.
 */
function frameworkKindOf(declared: Type): FrameworkKind | null {
  const type = withoutUndefined(declared);
  const name = type.getSymbol()?.getName();
  if (!name) return null;
  const hono = HONO_TYPES[name];
  if (
    hono &&
    type
      .getSymbol()
      ?.getDeclarations()
      .some((d) => /[/\\]hono[/\\]/.test(d.getSourceFile().getFilePath()))
  ) {
    return hono;
  }
  const platform = PLATFORM_TYPES[name];
  return platform && isLibraryType(type, name) ? platform : null;
}

/** `T | undefined` as `T`; any other type as it is. */
function withoutUndefined(type: Type): Type {
  if (!type.isUnion()) return type;
  const defined = type.getUnionTypes().filter((member) => !member.isUndefined());
  return defined.length === 1 ? (defined[0] as Type) : type;
}

function serviceToken(type: Type): string {
  const core = type.getNonNullableType();
  return core.getSymbol()?.getName() ?? core.getAliasSymbol()?.getName() ?? core.getText();
}

/** `requestId` reads the `request-id` header. */
function headerNameOf(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
}

/** The scalar kind of an array's items, when they are scalars (`?tag=a&tag=b`). */
function listElementKind(schema: JsonSchema): ScalarKind | null {
  if (schema.type !== 'array') return null;
  const items = schema.items as JsonSchema | undefined;
  const type = items?.type;
  if (type === 'integer') return 'integer';
  if (type === 'number' || type === 'boolean') return type;
  return type === 'string' ? (items?.format === 'date-time' ? 'date' : 'string') : null;
}

function bound(binding: ParameterBinding, ...inputs: InputCandidate[]): Classification {
  return { ok: true, parameter: { binding, inputs } };
}

function fail(code: DiagnosticCode, message: string): Classification {
  return { ok: false, code, message };
}

function unbindable(reason: string): Classification {
  return fail(DiagnosticCode.UnbindableParameter, reason);
}

function describedAs(schema: JsonSchema, description: string | null): JsonSchema {
  return description === null ? schema : { ...schema, description };
}
