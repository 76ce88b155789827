import type { ConfigProblem } from '@tollgate/gateway-core/errors';
import { HTTP_KEYS } from './http-section.js';
import { MCP_KEYS } from './mcp-section.js';

/**
 * Resumes waiting on one instance at once, by default: half its connections, the other half left to every other client.
 */
export function defaultMaxResumes(maxConnections: number): number {
  return Math.max(1, Math.floor(maxConnections / 2));
}

/**
 * `Gw:Mcp:MaxResumes`, or its default from `Gw:Http:MaxConnections`. Each
 * waiting resume holds a connection, so the bound must stay below the
 * connection limit (issue 25, finding 2): at it, resumes alone could take
 * every connection, health probes' included.
 */
export function maxResumesOf(
  configured: number | undefined,
  maxConnections: number,
  problems: ConfigProblem[],
): number {
  if (configured === undefined) return defaultMaxResumes(maxConnections);
  if (configured >= maxConnections) {
    problems.push({
      path: MCP_KEYS.maxResumes.name,
      message:
        `must be below ${HTTP_KEYS.maxConnections.name} ` +
        `(${maxConnections}): each waiting resume holds a connection`,
    });
  }
  return configured;
}
