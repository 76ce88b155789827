import { DEFAULT_LISTEN_LIMITS } from '@tollgate/gateway-core/internal';
import { z } from 'zod';
import { declareKeys } from './declare.js';
import { oneOf, positiveInt, positiveSeconds } from './fields.js';

/** `Gw:Mcp:*`: MCP sessions, calls in flight, resumes, listen streams and how errors are delivered. */
export const MCP_KEYS = declareKeys({
  sessionIdleMinutes: {
    name: 'Gw:Mcp:SessionIdleMinutes',
    field: positiveInt(30),
    description: 'An MCP session expires after this long without a request.',
  },
  maxBodyBytes: {
    name: 'Gw:Mcp:MaxBodyBytes',
    field: positiveInt(1024 * 1024),
    description: 'Larger `/mcp` bodies get 413 (Content-Length and chunked alike).',
  },
  // One credential normally backs a handful of clients, each with one session: 100 leaves room for a fleet sharing one.
  maxSessionsPerAgent: {
    name: 'Gw:Mcp:MaxSessionsPerAgent',
    field: positiveInt(100),
    description:
      "Open MCP sessions one agent may hold, across all instances. An `initialize` past the cap ends the agent's " +
      'least recently used session (the one idle longest), which then answers 404 like an expired one; expired ' +
      'and ended sessions do not count. One credential normally backs a handful of clients with one session ' +
      'each, so 100 leaves room for a fleet sharing one, while an agent opening sessions in a loop holds at most ' +
      '100 (about 40 KB in Redis) instead of one per request for `Gw:Mcp:SessionIdleMinutes`.',
  },
  // A quarter of the downstream pool's 128 connections: room for
  // parallel tool loops, never one agent's whole pool (0 = no limit).
  maxConcurrentCallsPerAgent: {
    name: 'Gw:Mcp:MaxConcurrentCallsPerAgent',
    field: {
      schema: z.coerce.number().int('must be a whole number').min(0, 'must not be negative (0 = no limit)').default(32),
      type: 'whole number ≥ 0',
    },
    description:
      '`tools/call` requests one agent may have in flight on each instance (0 = no limit). One more is refused ' +
      'at once as `too-many-calls` (429 / -32003, in-band under MCP delivery, `retryAfterSeconds: 1`), before it ' +
      'reserves budget or reaches the downstream, and audited with the agent and tool. 32 is a quarter of the ' +
      '128 downstream connections: room for parallel tool loops and a fleet of workers sharing one credential, ' +
      "never one agent's whole pool. Counted per instance, without a Redis round trip.",
  },
  resumeWindowSeconds: {
    name: 'Gw:Mcp:ResumeWindowSeconds',
    field: positiveInt(120),
    description:
      'How long the answer of a `tools/call` whose client lost the stream is kept for a resume (`GET /mcp` with ' +
      '`Last-Event-ID`), and how long a resume waits for a call still running.',
  },
  // A few clients of one credential resuming at once; the total
  // defaults to half of Gw:Http:MaxConnections (resume-bounds.ts).
  maxResumesPerAgent: {
    name: 'Gw:Mcp:MaxResumesPerAgent',
    field: positiveInt(8),
    description:
      'Resumes (`GET /mcp` with `Last-Event-ID`) one agent may have waiting on each instance; one more is ' +
      'refused at once as `too-many-calls` (429, `Retry-After: 1`, -32003).',
  },
  maxResumes: {
    name: 'Gw:Mcp:MaxResumes',
    field: {
      schema: z.coerce.number().int('must be a whole number').positive('must be positive').optional(),
      type: 'whole number ≥ 1',
    },
    defaultIs: 'half of `Gw:Http:MaxConnections`',
    description:
      "Resumes waiting on each instance, every agent's together; must be below `Gw:Http:MaxConnections` (each " +
      'holds a connection), or the gateway refuses to start.',
  },
  // A handful of clients of one credential each listening; the total is idle sockets and timers (gateway-core
  // DEFAULT_LISTEN_LIMITS).
  maxListenStreamsPerAgent: {
    name: 'Gw:Mcp:MaxListenStreamsPerAgent',
    field: positiveInt(DEFAULT_LISTEN_LIMITS.maxPerAgent),
    description:
      'MCP 2026-07-28 `subscriptions/listen` streams one agent may hold open on one instance. One more is HTTP ' +
      '429, -32003 (`too-many-listens`). Positive; not above `Gw:Mcp:MaxListenStreams`, else the gateway refuses ' +
      'to start naming the key.',
  },
  maxListenStreams: {
    name: 'Gw:Mcp:MaxListenStreams',
    field: positiveInt(DEFAULT_LISTEN_LIMITS.maxTotal),
    description:
      "Listen streams open on one instance, every agent's together. Positive. Each is an idle socket with a " +
      'keep-alive timer; it holds no call slot and no budget. `Gw:Http:MaxConnections` caps connections of every ' +
      'kind before this does.',
  },
  errorDelivery: {
    name: 'Gw:Mcp:ErrorDelivery',
    field: oneOf(['mcp', 'http-status'], 'mcp', 'must be mcp or http-status'),
    description:
      'How `/mcp` delivers errors. `mcp`: as MCP clients expect — a failed tool is an `isError` result the model ' +
      "reads (downstream's words included, privacy-filtered and capped), refusals (scope, allowlist, write " +
      'guard, budget, breaker) are JSON-RPC errors in HTTP 200 with `data` to act on; credentials, sessions and ' +
      "malformed requests keep their HTTP status. `http-status`: contract 7's HTTP statuses for every error " +
      '([contract 7](contract.md#7-errors)). Codes, audit and metrics are the same either way.',
  },
  keepAliveSeconds: {
    name: 'Gw:Mcp:KeepAliveSeconds',
    field: positiveSeconds(5),
    description:
      'A `tools/call` still running after this long is answered as a 200 SSE stream carrying a `: keep-alive` ' +
      'comment every interval; its final event holds the result or the JSON-RPC error (with `data.httpStatus`).',
  },
});
