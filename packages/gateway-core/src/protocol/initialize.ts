import { z } from 'zod';
import { InvalidInputError } from '../errors.js';
import { negotiateProtocolVersion, type ProtocolVersion } from './protocol-version.js';

export const InitializeParamsSchema = z.object({
  protocolVersion: z.string(),
  capabilities: z.record(z.string(), z.unknown()),
  clientInfo: z.object({ name: z.string(), version: z.string() }),
});

export type InitializeParams = z.infer<typeof InitializeParamsSchema>;

/** Validated `initialize` params; 400/-32602 naming each bad field. */
export function parseInitializeParams(params: unknown): InitializeParams {
  const result = InitializeParamsSchema.safeParse(params ?? {});
  if (result.success) return result.data;
  const fields = result.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message }));
  throw new InvalidInputError('Invalid initialize params', fields);
}

export interface ServerInfo {
  name: string;
  version: string;
}

export interface InitializeResult {
  protocolVersion: ProtocolVersion;
  capabilities: { tools: { listChanged: boolean } };
  serverInfo: ServerInfo;
  instructions?: string;
}

export interface InitializeResultOptions {
  requestedVersion: string;
  serverInfo: ServerInfo;
  instructions?: string;
}

/**
 * The gateway offers tools only. `listChanged: false` until a server stream
 * exists to carry `notifications/tools/list_changed`.
 */
export function buildInitializeResult(options: InitializeResultOptions): InitializeResult {
  return {
    protocolVersion: negotiateProtocolVersion(options.requestedVersion),
    capabilities: { tools: { listChanged: false } },
    serverInfo: options.serverInfo,
    ...(options.instructions === undefined ? {} : { instructions: options.instructions }),
  };
}
