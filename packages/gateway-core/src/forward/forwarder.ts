import { context, propagation } from '@opentelemetry/api';
import { performance } from 'node:perf_hooks';
import { randomUUID } from 'node:crypto';
import { ASSERTION_HEADER } from '@tollgate/contract';
import { TimedStop } from '../abort/timed-stop.js';
import type { GatewayAssertionSigner } from '../assertion/assertion-signer.js';
import type { ToolDefinition } from '../tools/definition.js';
import { DownstreamCallError } from '../errors.js';
import { checkDownstreamHeaders, endToEndHeaders } from './headers.js';
import { buildDownstreamRequest } from './request.js';
import { NodeHttpPool } from './node-http-pool.js';
import { decodeBody, readErrorAnswer, readLimited } from './response-body.js';

export interface ForwardResult {
  status: number;
  /** End-to-end headers only; hop-by-hop ones are dropped. */
  headers: Record<string, string>;
  /** Parsed JSON, text, or null for an empty body; undefined when the answer comes `raw`. */
  body: unknown;
  /**
   * An answer longer than `largeAnswerBytes`, as read: decoding it is left
   * to a worker thread (see `LargeAnswers`), so its JSON never holds the event loop.
   */
  raw?: RawAnswer;
  durationMs: number;
}

/** A downstream answer not decoded yet. */
export interface RawAnswer {
  bytes: Buffer;
  contentType: string | undefined;
}

/**
 * Sends one validated tool call to the downstream. Arguments must already
 * have passed the tool's input schema. A breaker, retries or a cache wrap
 * this interface without the pipeline noticing.
 */
export interface Forwarder {
  forward(
    tool: ToolDefinition,
    args: Record<string, unknown>,
    signal?: AbortSignal,
    options?: ForwardOptions,
  ): Promise<ForwardResult>;
}

/**
 * Who a call is for: for a forwarder that shares the downstream fairly between agents, and for the gateway's assertion.
 */
export interface ForwardOptions {
  agentId?: string;
  /** The scopes granted to this call (token ∩ agent), asserted to the downstream. */
  scopes?: readonly string[];
  /** One id for the whole call, the same on each retry; absent, each attempt gets its own. */
  callId?: string;
}

/** Signs a `Tollgate-Assertion` for each attempt, so the downstream can check the call came through the gateway. */
export interface ForwardAssertion {
  signer: Pick<GatewayAssertionSigner, 'sign'>;
  /** The assertion's `aud`. Default: `baseUrl` as configured. */
  audience?: string;
}

export interface HttpForwarderOptions {
  /** The downstream API's base URL; may carry a path prefix. */
  baseUrl: string;
  /** Sent on every request; see `checkDownstreamHeaders` (problems at `downstream.headers.<Name>`). */
  headers?: Readonly<Record<string, string>>;
  /** The whole call, body included. Default 10 s. */
  timeoutMs?: number;
  /**
   * Longest answer read; a longer one (or one that declares a longer Content-Length) is refused as
   * `response-too-large`.
   */
  maxResponseBytes?: number;
  /** Answers longer than this come back `raw`, for a worker to decode; unset, every answer is decoded here. */
  largeAnswerBytes?: number;
  /** Most sockets open to the downstream, one call each. Default 128. */
  connections?: number;
  keepAliveTimeoutMs?: number;
  /**
   * Given, every attempt carries a signed `Tollgate-Assertion` header naming the agent, the tool and this downstream.
   */
  assertion?: ForwardAssertion;
}

export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024;
export const DEFAULT_CONNECTIONS = 128;
/** `Tollgate-Assertion`, in lower case like every header the forwarder sends. */
const ASSERTION_HEADER_NAME = ASSERTION_HEADER.toLowerCase();

/** Forwards over a keep-alive connection pool (node:http, see NodeHttpPool) to one downstream origin. */
export class HttpForwarder implements Forwarder {
  /** The pool's size: calls beyond it queue inside the pool, so a caller that must not queue keeps within it. */
  readonly connections: number;
  readonly #pool: NodeHttpPool;
  readonly #basePath: string;
  /**
   * What every request carries (accept and the configured headers),
   * without and with a JSON body: copied per call, never rebuilt.
   */
  readonly #headersNoBody: Readonly<Record<string, string>>;
  readonly #headersWithBody: Readonly<Record<string, string>>;
  readonly #timeoutMs: number;
  readonly #maxResponseBytes: number;
  readonly #largeAnswerBytes: number;
  readonly #assertion: Required<ForwardAssertion> | undefined;

  constructor(options: HttpForwarderOptions) {
    const base = new URL(options.baseUrl);
    this.#basePath = base.pathname;
    const configured = checkDownstreamHeaders(options.headers ?? {});
    // Only configured headers: the agent's own credentials never reach the downstream.
    this.#headersNoBody = { accept: 'application/json', ...configured };
    this.#headersWithBody = { accept: 'application/json', 'content-type': 'application/json', ...configured };
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    this.#largeAnswerBytes = options.largeAnswerBytes ?? Number.POSITIVE_INFINITY;
    this.connections = options.connections ?? DEFAULT_CONNECTIONS;
    this.#assertion = options.assertion && {
      signer: options.assertion.signer,
      audience: options.assertion.audience ?? options.baseUrl,
    };
    this.#pool = new NodeHttpPool(base.origin, {
      connections: this.connections,
      keepAliveTimeoutMs: options.keepAliveTimeoutMs ?? 30_000,
    });
  }

  async forward(
    tool: ToolDefinition,
    args: Record<string, unknown>,
    signal?: AbortSignal,
    options?: ForwardOptions,
  ): Promise<ForwardResult> {
    const request = buildDownstreamRequest(tool, args, this.#basePath);
    const sent = { ...(request.body === undefined ? this.#headersNoBody : this.#headersWithBody) };
    if (this.#assertion !== undefined)
      sent[ASSERTION_HEADER_NAME] = this.#signAssertion(this.#assertion, tool, options);
    const stop = new TimedStop(this.#timeoutMs, signal);
    const started = performance.now();
    try {
      const response = await this.#pool.request({
        method: request.method,
        path: request.path,
        headers: withTraceContext(sent),
        body: request.body ?? null,
        stop,
      });
      if (response.statusCode >= 400) {
        // What the downstream says went wrong (a problem+json title/detail, say) is for the model to read.
        const answer = await readErrorAnswer(response.body, response.headers['content-type']);
        throw new DownstreamCallError(
          `Downstream answered ${response.statusCode} for tool ${tool.name}`,
          { reason: 'status', downstreamStatus: response.statusCode },
          { answer },
        );
      }
      const raw = await readLimited(response.body, this.#maxResponseBytes, response.headers['content-length']);
      const headers = endToEndHeaders(response.headers);
      const contentType = headers['content-type'];
      const durationMs = performance.now() - started;
      if (raw.length > this.#largeAnswerBytes)
        return { status: response.statusCode, headers, body: undefined, raw: { bytes: raw, contentType }, durationMs };
      return { status: response.statusCode, headers, body: decodeBody(raw, contentType), durationMs };
    } catch (error) {
      throw this.#failure(error, tool, stop, signal);
    } finally {
      stop.dispose();
    }
  }

  /** Signed per attempt, after the request is built: a refused argument costs no signature. */
  #signAssertion(
    assertion: Required<ForwardAssertion>,
    tool: ToolDefinition,
    options: ForwardOptions | undefined,
  ): string {
    return assertion.signer.sign({
      audience: assertion.audience,
      agentId: options?.agentId ?? '',
      tool: tool.name,
      scopes: options?.scopes ?? [],
      callId: options?.callId ?? randomUUID(),
    });
  }

  /** Closes idle sockets; in-flight calls finish first. */
  close(): Promise<void> {
    return this.#pool.close();
  }

  #failure(
    error: unknown,
    tool: ToolDefinition,
    stop: TimedStop,
    signal: AbortSignal | undefined,
  ): DownstreamCallError {
    if (error instanceof DownstreamCallError) return error;
    if (stop.timedOut) {
      return new DownstreamCallError(
        `Downstream did not answer tool ${tool.name} within ${this.#timeoutMs} ms`,
        { reason: 'timeout', timeoutMs: this.#timeoutMs },
        { cause: error },
      );
    }
    // The caller's signal may abort with any reason (not only an AbortError): ask the signal, not the error.
    if (signal?.aborted || isAbort(error))
      return new DownstreamCallError(
        `Call to tool ${tool.name} was cancelled`,
        { reason: 'aborted' },
        { cause: error },
      );
    const code = networkCode(error);
    return new DownstreamCallError(
      `Downstream unreachable for tool ${tool.name}${code ? ` (${code})` : ''}`,
      { reason: 'network', code },
      { cause: error },
    );
  }
}

/**
 * Adds the active trace context (W3C `traceparent`, `tracestate`) so the
 * downstream continues the caller's trace. Without a registered propagator
 * this adds nothing.
 */
function withTraceContext(headers: Record<string, string>): Record<string, string> {
  propagation.inject(context.active(), headers);
  return headers;
}

function isAbort(error: unknown): boolean {
  return error instanceof Error && (error.name === 'AbortError' || (error as { code?: unknown }).code === 'ABORT_ERR');
}

/** The system or Node error code, e.g. ECONNREFUSED or ECONNRESET. */
function networkCode(error: unknown): string | null {
  for (let current = error; current instanceof Error; current = current.cause) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return null;
}
