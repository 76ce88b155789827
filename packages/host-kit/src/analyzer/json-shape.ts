import { Node, SyntaxKind, ts, type Symbol as MorphSymbol, type Type } from 'ts-morph';
import type { ValueKind } from '../manifest.js';
import type { JsonSchema } from '../schema/json-schema-property.js';
import type { KitSymbols } from './kit-symbols.js';

/**
 * How a TypeScript type travels as JSON (contract 4.6 rule 3): `Int` and bigint
 * are `integer`, number is `number`, boolean is `boolean`, every other scalar
 * is `string`; arrays and objects keep their JSON Schema shape (the same
 * decision as the endpoint form). `kind` tells the runtime how to convert.
 */
export type Shape =
  | { ok: true; kind: ValueKind; schema: JsonSchema; nullable: boolean; acceptsNull: boolean }
  | { ok: false; reason: string };

export interface ShapeContext {
  kit: KitSymbols;
  checker: ts.TypeChecker;
  /** Where property types are read from (the parameter being classified). */
  location: Node;
}

export interface PropertyShape {
  name: string;
  shape: Extract<Shape, { ok: true }>;
  optional: boolean;
  description: string | null;
}

export type PropertiesRead = { ok: true; properties: PropertyShape[] } | { ok: false; reason: string };

const STRING: JsonSchema = { type: 'string' };

export function shapeOf(type: Type, context: ShapeContext, seen: ReadonlySet<Type> = new Set()): Shape {
  const members = type.isUnion() ? type.getUnionTypes() : [type];
  const core = members.filter((member) => !member.isNull() && !member.isUndefined());
  const nullable = core.length < members.length;
  // `| null` (not only `| undefined`): the input's type says null may be sent.
  const acceptsNull = members.some((member) => member.isNull());
  const shape = coreShape(core, context, seen);
  return shape.ok ? { ...shape, nullable, acceptsNull } : shape;
}

type CoreShape = { ok: true; kind: ValueKind; schema: JsonSchema } | { ok: false; reason: string };

function coreShape(core: Type[], context: ShapeContext, seen: ReadonlySet<Type>): CoreShape {
  if (core.length === 0) return { ok: true, kind: 'json', schema: STRING };
  if (core.every((member) => member.isBooleanLiteral()))
    return { ok: true, kind: 'boolean', schema: { type: 'boolean' } };
  if (core.every((member) => member.isStringLiteral())) {
    const values = core.map((member) => member.getLiteralValue());
    return { ok: true, kind: 'string', schema: { type: 'string', enum: values } };
  }
  if (core.every((member) => member.isNumberLiteral() || member.isNumber())) return number();
  if (core.length === 1) return singleShape(core[0] as Type, context, seen);
  for (const member of core) {
    const shape = singleShape(member, context, seen);
    if (!shape.ok) return shape;
  }
  // A mixed union (`string | number`) has no one JSON type: rule 3's "everything else".
  return { ok: true, kind: 'json', schema: STRING };
}

function singleShape(type: Type, context: ShapeContext, seen: ReadonlySet<Type>): CoreShape {
  if (context.kit.isInt(type)) return { ok: true, kind: 'integer', schema: { type: 'integer' } };
  if (type.isNumber() || type.isNumberLiteral()) return number();
  if (type.isBigInt() || type.isBigIntLiteral()) return { ok: true, kind: 'bigint', schema: { type: 'integer' } };
  if (type.isBoolean() || type.isBooleanLiteral()) return { ok: true, kind: 'boolean', schema: { type: 'boolean' } };
  if (type.isString() || type.isStringLiteral() || type.isTemplateLiteral())
    return { ok: true, kind: 'string', schema: STRING };
  if (type.isAny() || type.isUnknown()) return { ok: true, kind: 'json', schema: STRING };
  if (type.getFlags() & ts.TypeFlags.ESSymbolLike) return { ok: false, reason: 'a symbol' };
  if (type.getCallSignatures().length > 0 || type.getConstructSignatures().length > 0) {
    return { ok: false, reason: 'a function' };
  }
  if (isLibraryType(type, 'Date')) return { ok: true, kind: 'date', schema: { type: 'string', format: 'date-time' } };
  if (type.isArray() || type.isReadonlyArray()) return arrayShape(type, context, seen);
  if (type.isTuple()) return { ok: true, kind: 'array', schema: { type: 'array' } };
  if (type.isObject() || type.isIntersection()) return objectShape(type, context, seen);
  return { ok: true, kind: 'json', schema: STRING };
}

function number(): CoreShape {
  return { ok: true, kind: 'number', schema: { type: 'number' } };
}

function arrayShape(type: Type, context: ShapeContext, seen: ReadonlySet<Type>): CoreShape {
  const element = type.getArrayElementType() ?? type.getTypeArguments()[0];
  if (!element) return { ok: true, kind: 'array', schema: { type: 'array' } };
  const items = shapeOf(element, context, seen);
  if (!items.ok) return { ok: false, reason: `an array whose items are ${items.reason}` };
  return { ok: true, kind: 'array', schema: { type: 'array', items: items.schema } };
}

function objectShape(type: Type, context: ShapeContext, seen: ReadonlySet<Type>): CoreShape {
  // A self-referencing type stops at the second visit: JSON has no references here.
  if (seen.has(type)) return { ok: true, kind: 'object', schema: { type: 'object' } };
  const read = propertiesOf(type, context, new Set([...seen, type]));
  if (!read.ok) return read;
  const properties: Record<string, JsonSchema> = {};
  for (const { name, shape, description } of read.properties) {
    properties[name] = description === null ? shape.schema : { ...shape.schema, description };
  }
  const required = read.properties.filter((property) => !property.optional).map((property) => property.name);
  return { ok: true, kind: 'object', schema: { type: 'object', properties, required } };
}

/**
 * The public data properties of a class, interface or object type: what a
 * JSON body can carry. Methods, accessors, private and protected members,
 * `#private` names and symbol keys are not part of it. A property is optional
 * when it is `?` or nullable (nullability only exists under strictNullChecks).
 */
export function propertiesOf(
  type: Type,
  context: ShapeContext,
  seen: ReadonlySet<Type> = new Set([type]),
): PropertiesRead {
  const properties: PropertyShape[] = [];
  for (const symbol of type.getProperties().filter(isPublicDataProperty)) {
    const shape = shapeOf(symbol.getTypeAtLocation(context.location), context, seen);
    if (!shape.ok) return { ok: false, reason: `an object whose property "${symbol.getName()}" is ${shape.reason}` };
    properties.push({
      name: symbol.getName(),
      shape,
      optional: symbol.isOptional() || shape.nullable,
      description: documentationOf(symbol, context.checker),
    });
  }
  return { ok: true, properties };
}

const NON_DATA_MEMBERS = new Set([
  SyntaxKind.MethodDeclaration,
  SyntaxKind.MethodSignature,
  SyntaxKind.GetAccessor,
  SyntaxKind.SetAccessor,
]);

function isPublicDataProperty(symbol: MorphSymbol): boolean {
  const name = symbol.getName();
  if (name.startsWith('#') || name.startsWith('__@')) return false;
  return symbol
    .getDeclarations()
    .every(
      (declaration) =>
        !NON_DATA_MEMBERS.has(declaration.getKind()) &&
        !(
          Node.isModifierable(declaration) &&
          (declaration.hasModifier(SyntaxKind.PrivateKeyword) || declaration.hasModifier(SyntaxKind.ProtectedKeyword))
        ),
    );
}

/** The TSDoc summary of a declaration, or null when there is none. */
export function documentationOf(symbol: MorphSymbol, checker: ts.TypeChecker): string | null {
  const text = ts.displayPartsToString(symbol.compilerSymbol.getDocumentationComment(checker)).trim();
  return text === '' ? null : text;
}

/** A global type such as `Date` or `Request`, declared by a lib file or an installed package (not the user's own). */
export function isLibraryType(type: Type, name: string): boolean {
  const symbol = type.getSymbol() ?? type.getAliasSymbol();
  if (symbol?.getName() !== name) return false;
  return symbol
    .getDeclarations()
    .some(
      (declaration) =>
        declaration.getSourceFile().isInNodeModules() || declaration.getSourceFile().isFromExternalLibrary(),
    );
}
