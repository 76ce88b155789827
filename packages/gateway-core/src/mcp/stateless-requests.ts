import { InvalidInputError, UnknownMethodError } from '../errors.js';
import { completeResult, SERVED_PROTOCOL_VERSIONS } from '../protocol/envelope.js';
import type { ServerInfo } from '../protocol/initialize.js';
import {
  jsonRpcResult,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from '../protocol/jsonrpc.js';
import type { ProtocolVersion } from '../protocol/protocol-version.js';
import type { ListenStreams } from './listen-streams.js';

/**
 * What the tool pipeline and listing do for a 2026-07-28 request: every
 * result feature of 2025-11-25 (structured content, invalid arguments as a
 * tool error) is in that revision too, and nothing of them changed.
 */
export const STATELESS_FEATURES: ProtocolVersion = '2025-11-25';

/**
 * How long a client may keep a `tools/list` result. The gateway itself reads
 * an agent's allowlist and scopes on every request, so a change reaches a
 * client that caches at most this long after it; an open
 * `subscriptions/listen` stream hears of it at once.
 */
export const TOOLS_LIST_TTL_MS = 60_000;

/** How long a client may keep the `server/discover` result: what it says changes only with a new gateway version. */
const DISCOVER_TTL_MS = 3_600_000;

export interface StatelessAnswerDeps {
  /** Whether `subscriptions/listen` is served (then `server/discover` says `tools.listChanged: true`). */
  listChanged: boolean;
  /**
   * tools/list's result for this caller (its tools in the registry's
   * order, stable across instances and calls; or search mode's).
   */
  listForCaller: () => { tools: readonly unknown[] };
}

/**
 * The methods of the stateless era other than tools/call (which the pipeline
 * answers), their results as `statelessMessage` then completes them: `server/discover` and `tools/list`. Anything else
 * — `initialize`, and the `ping` and `logging/setLevel` that revision removed among them — is
 * HTTP 404 with -32601, as its transport requires.
 */
export function answerStateless(deps: StatelessAnswerDeps, request: JsonRpcRequest): JsonRpcResponse {
  switch (request.method) {
    case 'server/discover':
      return jsonRpcResult(request.id, discoverResult(deps.listChanged));
    case 'tools/list': {
      const listed = deps.listForCaller();
      // "private": the list depends on the caller's allowlist and scopes, so no shared cache may keep it.
      return jsonRpcResult(request.id, { ...listed, ttlMs: TOOLS_LIST_TTL_MS, cacheScope: 'private' });
    }
    default:
      throw new UnknownMethodError(unknownMethodMessage(request.method));
  }
}

function unknownMethodMessage(method: string): string {
  if (method === 'initialize')
    return (
      'Method not found: initialize is not a method of 2026-07-28 (no handshake); send initialize without the ' +
      '_meta envelope to open a session of an earlier revision'
    );
  return `Method not found: ${method}`;
}

/**
 * Every revision served and the capabilities (the server's identity joins every result's `_meta`: see
 * `statelessMessage`).
 */
function discoverResult(listChanged: boolean): object {
  return {
    supportedVersions: SERVED_PROTOCOL_VERSIONS,
    capabilities: { tools: { listChanged }, extensions: {} },
    // The same for every caller, but only ever answered to an authenticated one: no shared cache keeps it.
    ttlMs: DISCOVER_TTL_MS,
    cacheScope: 'private',
  };
}

/** A stateless era answer: a result gains `resultType` and `serverInfo`; an error stays as it is. */
export function statelessMessage(message: JsonRpcResponse, serverInfo: ServerInfo): JsonRpcResponse {
  if (!('result' in message) || typeof message.result !== 'object' || message.result === null) return message;
  return { ...message, result: completeResult(message.result, serverInfo) };
}

const META_SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

/** An open `subscriptions/listen` stream, for the transport to write (see `McpReply`). */
export interface ListenReply {
  kind: 'listen';
  /** The stream's first event: `notifications/subscriptions/acknowledged`, with the filter honoured. */
  acknowledged: JsonRpcNotification;
  /** Sets where each later notification goes: the stream's writer. */
  deliver(send: (message: JsonRpcNotification) => void): void;
  /** Ends the subscription (the client closed the stream); safe to call twice. */
  close(): void;
}

/**
 * Opens a listen stream of the caller's agent. Only `toolsListChanged` is
 * honoured (the gateway serves tools only); the acknowledgement says so. The
 * stream counts towards the bounds whatever it asked for, so idle streams
 * cannot pile up.
 */
export function openListen(streams: ListenStreams, agentId: string, request: JsonRpcRequest): ListenReply {
  const wanted = request.params?.notifications;
  if (typeof wanted !== 'object' || wanted === null || Array.isArray(wanted)) {
    throw new InvalidInputError(
      'subscriptions/listen needs params.notifications, an object naming the notifications wanted',
      [{ path: 'notifications', message: 'required (an object)' }],
    );
  }
  const tools = (wanted as Record<string, unknown>).toolsListChanged === true;
  const meta = { [META_SUBSCRIPTION_ID]: request.id };
  let send: ((message: JsonRpcNotification) => void) | null = null;
  const changed: JsonRpcNotification = {
    jsonrpc: '2.0',
    method: 'notifications/tools/list_changed',
    params: { _meta: meta },
  };
  const close = streams.listen(agentId, tools ? () => send?.(changed) : () => undefined);
  return {
    kind: 'listen',
    acknowledged: {
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: { _meta: meta, notifications: tools ? { toolsListChanged: true } : {} },
    },
    deliver: (writer) => void (send = writer),
    close,
  };
}
