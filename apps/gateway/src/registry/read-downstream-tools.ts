import { importOpenApi, OpenApiDocumentError, type OperationNote } from '@tollgate/gateway-core';
import type { OpenApiSource } from '../config/downstreams-section.js';
import { fetchToolSchema, retryingRead, SchemaUnusableError, type RetryingReadOptions } from './fetch-tool-schema.js';
import { readOpenApiDocument } from './read-openapi-document.js';

/** Where a downstream's tools are read: its `/gw/schema`, or its OpenAPI document when configured. */
export interface SchemaSource {
  name: string;
  baseUrl: string;
  /** Fits imported names to 64 characters with the prefix. */
  prefix?: string;
  openApi?: OpenApiSource;
}

/** One read of a downstream's tools, as the catalog loads them. */
export interface DownstreamTools {
  /** Tool definitions as `/gw/schema` serves them. */
  schema: unknown;
  /** Operations of an OpenAPI document that were not imported, one line each, with why. */
  skipped: string[];
  /** Imported operations with something left out or renamed. */
  notes: string[];
  /** The OpenAPI document's digest, to tell an unchanged one on the next read (null: always re-read). */
  digest: string | null;
}

export interface ReadToolsOptions extends RetryingReadOptions {
  /** The digest of the OpenAPI document the current tools came from. */
  lastDigest?: string | null;
}

/** Reads a downstream's tools once (retrying what may come right, as `options` say); `unchanged` when its OpenAPI document is the one of `lastDigest`. */
export async function readDownstreamTools(source: SchemaSource, options: ReadToolsOptions): Promise<DownstreamTools | 'unchanged'> {
  if (!source.openApi) return { schema: await fetchToolSchema({ ...options, downstreamBaseUrl: source.baseUrl }), skipped: [], notes: [], digest: null };
  const { location, include, exclude, allowWrite } = source.openApi;
  const read = await retryingRead(() => readOpenApiDocument(location, { signal: options.signal, lastDigest: options.lastDigest }), options);
  if ('unchanged' in read) return 'unchanged';
  try {
    const imported = importOpenApi(read.document, { prefix: source.prefix ?? '', include, exclude, allowWrite });
    return { schema: imported.tools, skipped: imported.skipped.map(describeNote), notes: imported.notes.map(describeNote), digest: read.digest };
  } catch (error) {
    if (error instanceof OpenApiDocumentError) throw new SchemaUnusableError(`the OpenAPI document cannot be imported: ${error.message}`);
    throw error;
  }
}

function describeNote(note: OperationNote): string {
  return `${note.operation}${note.operationId ? ` (${note.operationId})` : ''}: ${note.reason}`;
}
