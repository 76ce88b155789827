// The session a request names: found (its idle expiry extended), and claimed by the agent that opened it alone.
import { InvalidRequestError, SessionNotFoundError } from '../errors.js';
import { protocolVersionForRequest, type ProtocolVersion } from '../protocol/protocol-version.js';
import type { SessionRecord } from '../store/ports.js';
import type { McpCaller, McpSession } from './mcp-caller.js';
import type { McpServiceOptions } from './mcp-service-options.js';

/** 32 base64url characters: 192 random bits. Anything else is not ours and skips the store. */
const SESSION_ID_PATTERN = /^[A-Za-z0-9_-]{32}$/;

/** The session named by the header, its idle expiry extended. Missing header: 400; not ours: see `claimSession`. */
export async function touchSession(
  options: Pick<McpServiceOptions, 'sessions' | 'sessionIdleMs'>,
  sessionId: string | undefined,
): Promise<SessionRecord | null> {
  if (sessionId === undefined || sessionId === '') {
    throw new InvalidRequestError('Mcp-Session-Id header is required: call initialize first');
  }
  if (!SESSION_ID_PATTERN.test(sessionId)) return null;
  return options.sessions.touch(sessionId, options.sessionIdleMs);
}

/** Unknown, expired or another agent's session: 404 alike. */
export function claimSession(
  caller: McpCaller,
  record: SessionRecord | null,
  versionHeader: string | undefined,
): McpSession {
  if (record === null || record.agentId !== caller.agent.agentId) throw new SessionNotFoundError();
  const protocolVersion = protocolVersionForRequest(versionHeader, record.protocolVersion as ProtocolVersion);
  return { record, protocolVersion };
}
