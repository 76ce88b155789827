import { resolvePointer } from '../../util/json-pointer.js';

/**
 * The parts of an OpenAPI document the importer reads, and the checks that
 * refuse a whole document. Everything is read defensively: a document comes
 * from outside and may be anything JSON or YAML can hold.
 */

export type JsonObject = Record<string, unknown>;

export type OpenApiVersion = '3.0' | '3.1';

/** The document cannot give any tools at all (not OpenAPI 3, Swagger 2.0, no paths). */
export class OpenApiDocumentError extends Error {
  override readonly name = 'OpenApiDocumentError';
}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The document's OpenAPI version, or why it cannot be imported. */
export function openApiVersion(document: unknown): OpenApiVersion {
  if (!isObject(document)) throw new OpenApiDocumentError('the OpenAPI document must be a JSON or YAML object');
  if (typeof document.swagger === 'string') {
    throw new OpenApiDocumentError(
      `this is a Swagger ${document.swagger} document; the gateway reads Swagger 2.0, OpenAPI 3.0 and 3.1: ` +
        `convert it to OpenAPI 3 first and point OpenApi at the result`,
    );
  }
  const version = typeof document.openapi === 'string' ? /^3\.([01])\.\d+/.exec(document.openapi) : null;
  if (version === null)
    throw new OpenApiDocumentError(
      `unsupported "openapi" version ${JSON.stringify(document.openapi ?? null)}: expected 3.0.x or 3.1.x`,
    );
  if (document.paths !== undefined && !isObject(document.paths))
    throw new OpenApiDocumentError('"paths" must be an object');
  return version[1] === '0' ? '3.0' : '3.1';
}

/** How many `$ref`s in a row are followed for a parameter, body or path item (not schemas, see schemas.ts). */
const MAX_REF_HOPS = 16;

/** Follows an object's `$ref` chain (parameters, request bodies), or says why it cannot. */
export function dereferenced(document: JsonObject, value: unknown): { value: JsonObject } | { problem: string } {
  let node = value;
  for (let hop = 0; hop < MAX_REF_HOPS; hop++) {
    if (!isObject(node)) return { problem: 'is not an object' };
    if (typeof node.$ref !== 'string') return { value: node };
    if (!node.$ref.startsWith('#'))
      return { problem: `$ref ${JSON.stringify(node.$ref)} points outside the document and was not resolved` };
    const target = resolvePointer(document, node.$ref);
    if (target === undefined) return { problem: `$ref ${JSON.stringify(node.$ref)} leads nowhere` };
    node = target;
  }
  return { problem: `goes through more than ${MAX_REF_HOPS} $refs` };
}
