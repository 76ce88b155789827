import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { parse as parseYaml } from 'yaml';
import { SchemaUnusableError } from './fetch-tool-schema.js';

/**
 * Reads a downstream's OpenAPI document (`Gw:Downstreams:<name>:OpenApi`)
 * from an http(s) URL or a file, JSON or YAML, and brings its external
 * `$ref`s into it (swagger-parser's bundle: each external part once, as an
 * internal `$ref`, never inlined). The importer in gateway-core does the rest.
 */

/** A document over this size is refused before it is parsed: GitHub's whole REST API is 13 MB. */
export const MAX_OPENAPI_DOCUMENT_BYTES = 32 * 1024 * 1024;

const FETCH_TIMEOUT_MS = 30_000;

export interface ReadOpenApiOptions {
  signal?: AbortSignal;
  maxBytes?: number;
  /** The digest of the last document read: the same text again is answered `unchanged`, unparsed. */
  lastDigest?: string | null;
}

export type OpenApiRead =
  | {
      document: unknown;
      /** The text's digest; null when it has external `$ref`s, whose files may change on their own. */
      digest: string | null;
    }
  | { unchanged: true };

/** Unreachable and 5xx throw a plain Error (worth retrying); everything else a SchemaUnusableError. */
export async function readOpenApiDocument(location: string, options: ReadOpenApiOptions = {}): Promise<OpenApiRead> {
  const maxBytes = options.maxBytes ?? MAX_OPENAPI_DOCUMENT_BYTES;
  const isUrl = /^https?:\/\//i.test(location);
  const base = isUrl ? location : resolve(location);
  const text = isUrl ? await download(location, maxBytes, options.signal) : await readLocal(base, maxBytes);
  // Parsing GitHub's 13 MB blocks the event loop for most of a second: not every refresh for nothing.
  const digest = createHash('sha256').update(text).digest('hex');
  if (options.lastDigest === digest) return { unchanged: true };
  const document = parseText(text);
  return hasExternalRef(document) ? { document: await bundle(base, document), digest: null } : { document, digest };
}

async function readLocal(file: string, maxBytes: number): Promise<string> {
  try {
    const { size } = await stat(file);
    if (size > maxBytes)
      throw new SchemaUnusableError(
        `the OpenAPI document is ${mib(size)} MiB, over the ${mib(maxBytes)} MiB the gateway reads`,
      );
    return await readFile(file, 'utf8');
  } catch (error) {
    if (error instanceof SchemaUnusableError) throw error;
    throw new SchemaUnusableError(
      `the OpenAPI document's file cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
    );
  }
}

async function download(url: string, maxBytes: number, signal: AbortSignal | undefined): Promise<string> {
  const timeout = AbortSignal.timeout(FETCH_TIMEOUT_MS);
  const response = await fetch(url, {
    signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    headers: { accept: 'application/json, application/yaml;q=0.9, */*;q=0.5' },
  });
  if (response.status >= 500) throw new Error(`the OpenAPI document's address answered ${response.status}`);
  if (!response.ok) throw new SchemaUnusableError(`the OpenAPI document's address answered ${response.status}`);
  const declared = Number(response.headers.get('content-length'));
  if (declared > maxBytes) {
    await response.body?.cancel();
    throw new SchemaUnusableError(
      `the OpenAPI document is ${mib(declared)} MiB, over the ${mib(maxBytes)} MiB the gateway reads`,
    );
  }
  // Counted as it arrives: a server that sends more than it declared (or declares nothing) is cut off at the bound.
  const chunks: Buffer[] = [];
  let received = 0;
  for await (const chunk of (response.body ?? []) as unknown as AsyncIterable<Uint8Array>) {
    received += chunk.byteLength;
    // Leaving the loop by a throw cancels the stream.
    if (received > maxBytes)
      throw new SchemaUnusableError(`the OpenAPI document is over the ${mib(maxBytes)} MiB the gateway reads`);
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseText(text: string): unknown {
  const json = text.trimStart().startsWith('{');
  try {
    // YAML aliases are bounded by the parser (maxAliasCount), so a "billion laughs" document is refused.
    return json ? JSON.parse(text) : parseYaml(text, { maxAliasCount: 1000 });
  } catch (error) {
    throw new SchemaUnusableError(
      `the OpenAPI document is not valid ${json ? 'JSON' : 'YAML'}: ` +
        `${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
    );
  }
}

/** Whether any `$ref` points outside the document; walked without recursion, as documents may nest deeply. */
function hasExternalRef(document: unknown): boolean {
  const stack: unknown[] = [document];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== 'object' || node === null) continue;
    if (
      !Array.isArray(node) &&
      typeof (node as { $ref?: unknown }).$ref === 'string' &&
      !(node as { $ref: string }).$ref.startsWith('#')
    )
      return true;
    stack.push(...Object.values(node));
  }
  return false;
}

async function bundle(base: string, document: unknown): Promise<unknown> {
  try {
    return await SwaggerParser.bundle(base, document as never, { resolve: { http: { timeout: FETCH_TIMEOUT_MS } } });
  } catch (error) {
    throw new SchemaUnusableError(
      `an external $ref of the OpenAPI document cannot be resolved: ` +
        `${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
    );
  }
}

function mib(bytes: number): string {
  return (bytes / 2 ** 20).toFixed(1);
}
