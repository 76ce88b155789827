import { importOpenApi, OpenApiDocumentError, type OperationNote, type ToolDefinition } from '@tollgate/gateway-core';
import type { OpenApiSource } from '../config/downstreams-section.js';
import { SchemaUnusableError } from './fetch-tool-schema.js';
import { readOpenApiDocument } from './read-openapi-document.js';

/** What one downstream's OpenAPI document gives. */
export interface OpenApiTools {
  tools: ToolDefinition[];
  /** Operations not imported, one line each, with why. */
  skipped: string[];
  /** Imported operations with something left out or renamed. */
  notes: string[];
  /** The document's digest, to tell an unchanged one on the next read (null: always re-read). */
  digest: string | null;
}

export interface OpenApiRequest {
  source: OpenApiSource;
  prefix: string;
  lastDigest: string | null | undefined;
}

/** Reads and imports the document once; `unchanged` when it is the one of `lastDigest`. */
export async function loadOpenApiTools(
  { source, prefix, lastDigest }: OpenApiRequest,
  signal?: AbortSignal,
): Promise<OpenApiTools | 'unchanged'> {
  const read = await readOpenApiDocument(source.location, { signal, lastDigest });
  if ('unchanged' in read) return 'unchanged';
  try {
    const { tools, skipped, notes } = importOpenApi(read.document, {
      prefix,
      include: source.include,
      exclude: source.exclude,
      allowWrite: source.allowWrite,
    });
    return { tools, skipped: skipped.map(describeNote), notes: notes.map(describeNote), digest: read.digest };
  } catch (error) {
    if (error instanceof OpenApiDocumentError)
      throw new SchemaUnusableError(`the OpenAPI document cannot be imported: ${error.message}`);
    throw error;
  }
}

function describeNote(note: OperationNote): string {
  return `${note.operation}${note.operationId ? ` (${note.operationId})` : ''}: ${note.reason}`;
}
