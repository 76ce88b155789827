import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

/**
 * RFC 9457 problem details: the one error body of the management and auth
 * endpoints (the spec leaves them open). `/mcp` answers JSON-RPC errors instead.
 */
export interface Problem {
  status: ContentfulStatusCode;
  title: string;
  detail?: string;
  errors?: string[];
}

export function problem(c: Context, { status, title, detail, errors }: Problem): Response {
  const body = { type: 'about:blank', title, status, ...(detail && { detail }), ...(errors && { errors }) };
  return c.body(JSON.stringify(body), status, { 'Content-Type': 'application/problem+json' });
}
