import { upgrade } from '@scalar/openapi-upgrader';
import { isObject, OpenApiDocumentError, type JsonObject } from './document.js';

/**
 * Swagger 2.0 → OpenAPI 3.0 with @scalar/openapi-upgrader (chosen by
 * measurement, see "Libraries and why"), before the importer reads the
 * document as any other 3.0 one. The conversion loses two things the
 * importer must know, so they are read from the 2.0 text first:
 * - a required `formData` parameter, or a file: the converted form body is
 *   never marked required, so the operation would be imported as a tool
 *   that cannot send what the API needs (optional form fields are left out
 *   with a note, as any optional non-JSON body);
 * - `collectionFormat: tsv`, which OpenAPI 3 cannot say: the converted
 *   parameter would be sent in another form than the API reads.
 * Those operations are skipped with their reason.
 */

export interface Swagger2Conversion {
  /** The OpenAPI 3.0 document (the input, changed in place: no second copy of a large document). */
  document: JsonObject;
  /** `GET /path` → why the operation cannot be imported. */
  unconvertible: Map<string, string>;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;

export function isSwagger2(document: unknown): document is JsonObject {
  return isObject(document) && document.swagger === '2.0';
}

export function fromSwagger2(document: JsonObject): Swagger2Conversion {
  const unconvertible = unconvertibleOperations(document);
  let converted: unknown;
  try {
    converted = upgrade(document, '3.0');
  } catch (error) {
    // The upgrader trusts the document's shape: a hostile one
    // fails as a TypeError, or a RangeError when nested very deep.
    const why =
      error instanceof RangeError ? 'it nests too deeply' : error instanceof Error ? error.message : String(error);
    throw new OpenApiDocumentError(
      `this Swagger 2.0 document could not be converted to OpenAPI 3.0 (${why}); check it with a Swagger ` +
        `validator, or convert it yourself and point OpenApi at the result`,
    );
  }
  if (!isObject(converted))
    throw new OpenApiDocumentError('this Swagger 2.0 document could not be converted to OpenAPI 3.0');
  return { document: converted, unconvertible };
}

function unconvertibleOperations(document: JsonObject): Map<string, string> {
  const found = new Map<string, string>();
  if (!isObject(document.paths)) return found;
  for (const [path, item] of Object.entries(document.paths)) {
    if (!isObject(item)) continue;
    for (const method of METHODS) {
      const operation = item[method];
      if (!isObject(operation)) continue;
      const parameters = [...listOf(item.parameters), ...listOf(operation.parameters)]
        .map((parameter) => sharedParameter(document, parameter))
        .filter(isObject);
      const reason = whyUnconvertible(parameters);
      if (reason !== undefined) found.set(`${method.toUpperCase()} ${path}`, reason);
    }
  }
  return found;
}

function whyUnconvertible(parameters: JsonObject[]): string | undefined {
  // An upload without its file is no use, even where the document calls the file optional.
  const form = parameters.filter(
    (parameter) => parameter.in === 'formData' && (parameter.required === true || parameter.type === 'file'),
  );
  if (form.length > 0) {
    const names = form
      .map((parameter) => `"${String(parameter.name)}"${parameter.type === 'file' ? ' (a file)' : ''}`)
      .join(', ');
    return (
      `its form parameter${form.length > 1 ? 's' : ''} ${names} cannot be sent: the gateway sends only path and ` +
      `query inputs and a JSON body`
    );
  }
  const tsv = parameters.find((parameter) => parameter.collectionFormat === 'tsv');
  if (tsv !== undefined)
    return `parameter "${String(tsv.name)}" is tab-separated (collectionFormat tsv), which OpenAPI 3 cannot describe`;
  return undefined;
}

/** A parameter, or the one of the document's shared `parameters` its local `$ref` names. */
function sharedParameter(document: JsonObject, parameter: unknown): unknown {
  if (!isObject(parameter) || typeof parameter.$ref !== 'string') return parameter;
  const name = /^#\/parameters\/([^/]+)$/.exec(parameter.$ref)?.[1];
  const shared =
    isObject(document.parameters) && name !== undefined
      ? document.parameters[name.replace(/~1/g, '/').replace(/~0/g, '~')]
      : undefined;
  return shared;
}

function listOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}
