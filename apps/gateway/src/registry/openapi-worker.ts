import { SchemaUnusableError } from './fetch-tool-schema.js';
import { loadOpenApiTools, type OpenApiRequest } from './load-openapi-tools.js';

/**
 * Reads and imports one OpenAPI document in a child process the gateway
 * forks for it (read-downstream-tools.ts): GitHub's 13 MB parse to some
 * 300 MB of objects for a few seconds, whose parsing would block the
 * gateway's event loop, and whose memory goes back to the system only when
 * the process that held it exits. The request comes as the first message;
 * only the tool definitions go back.
 */
export type OpenApiWorkerReply =
  | { ok: true; result: Awaited<ReturnType<typeof loadOpenApiTools>> }
  | { ok: false; message: string; unusable: boolean };

process.once('message', (request) => {
  void loadOpenApiTools(request as OpenApiRequest)
    .then((result): OpenApiWorkerReply => ({ ok: true, result }))
    .catch(
      (error: unknown): OpenApiWorkerReply => ({
        ok: false,
        message: error instanceof Error ? error.message : String(error),
        unusable: error instanceof SchemaUnusableError,
      }),
    )
    // Disconnecting once the reply is out lets the process end by itself.
    .then((reply) => process.send?.(reply, () => process.disconnect()));
});
