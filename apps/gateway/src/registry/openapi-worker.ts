import { parentPort, workerData } from 'node:worker_threads';
import { SchemaUnusableError } from './fetch-tool-schema.js';
import { loadOpenApiTools, type OpenApiRequest } from './load-openapi-tools.js';

/**
 * Reads and imports one OpenAPI document in a worker thread: GitHub's 13 MB
 * parse to some 300 MB of objects for a few seconds, which the gateway's
 * own heap would keep as resident memory long after, and whose parsing would
 * block its event loop. Only the tool definitions come back.
 */
export type OpenApiWorkerReply = { ok: true; result: Awaited<ReturnType<typeof loadOpenApiTools>> } | { ok: false; message: string; unusable: boolean };

loadOpenApiTools(workerData as OpenApiRequest)
  .then((result): OpenApiWorkerReply => ({ ok: true, result }))
  .catch((error: unknown): OpenApiWorkerReply => ({ ok: false, message: error instanceof Error ? error.message : String(error), unusable: error instanceof SchemaUnusableError }))
  .then((reply) => parentPort?.postMessage(reply));
