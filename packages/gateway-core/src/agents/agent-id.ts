import { randomBytes } from 'node:crypto';

/** Shape of every agent id: `agt_` and 22 url-safe characters (128 random bits). */
export const AGENT_ID_PATTERN = /^agt_[A-Za-z0-9_-]{22}$/;

export function newAgentId(): string {
  return `agt_${randomBytes(16).toString('base64url')}`;
}

export function isAgentId(value: string): boolean {
  return AGENT_ID_PATTERN.test(value);
}
