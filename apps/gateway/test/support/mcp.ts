import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { GatewayClient } from './gateway-client.js';
import { eventually } from './processes.js';

/**
 * MCP helpers for process-level tests: raw POST /mcp exchanges (to check exact
 * HTTP statuses and JSON-RPC codes) and the official SDK client.
 */

/** One message event, after the keep-alive comments a call that waits (for budget admission, say) is sent first. */
export const SSE_MESSAGE = /^(?:: keep-alive\n\n)*event: message\ndata: (.*)\n\n$/s;

export interface McpExchange {
  status: number;
  headers: Headers;
  /** The raw body. */
  text: string;
  /** The JSON-RPC message: from the SSE `message` event, or the JSON body; null when there is no body. */
  message: any;
}

export interface RawRequestOptions {
  token?: string;
  sessionId?: string;
  /** Extra headers; a value of undefined removes a default one. */
  headers?: Record<string, string | undefined>;
  method?: string;
}

/** One HTTP exchange with /mcp; the body is sent as is when it is a string. */
export async function mcpRaw(gatewayUrl: string, body: unknown, options: RawRequestOptions = {}): Promise<McpExchange> {
  const headers: Record<string, string | undefined> = {
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
    Authorization: options.token === undefined ? undefined : `Bearer ${options.token}`,
    'Mcp-Session-Id': options.sessionId,
    ...options.headers,
  };
  const method = options.method ?? 'POST';
  const response = await fetch(`${gatewayUrl}/mcp`, {
    method,
    headers: Object.fromEntries(
      Object.entries(headers).filter((entry): entry is [string, string] => entry[1] !== undefined),
    ),
    body: method === 'POST' ? (typeof body === 'string' ? body : JSON.stringify(body)) : undefined,
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    text,
    message: parseMessage(response.headers.get('content-type'), text),
  };
}

/**
 * A resumable stream (a tools/call from 2025-03-26 on) opens with a priming
 * event (`id`, `retry`, empty `data`) and gives its message event an `id`.
 */
const RESUMABLE_SSE =
  /^id: (\S+):0\nretry: \d+\ndata: \n\n(?:: keep-alive\n\n)*id: \1:1\nevent: message\ndata: (.*)\n\n$/s;
/** A resumed stream (GET with Last-Event-ID): keep-alive comments until the answer, event 1. */
const RESUMED_SSE = /^(?:: keep-alive\n\n)*id: \S+:1\nevent: message\ndata: (.*)\n\n$/s;

function parseMessage(contentType: string | null, text: string): unknown {
  if (text === '') return null;
  if (contentType?.startsWith('text/event-stream')) {
    const match = SSE_MESSAGE.exec(text) ?? RESUMABLE_SSE.exec(text)?.slice(1) ?? RESUMED_SSE.exec(text);
    if (!match) throw new Error(`not one SSE message event: ${JSON.stringify(text)}`);
    return JSON.parse(match.at(-1)!);
  }
  return JSON.parse(text);
}

export function initializeRequest(protocolVersion = '2024-11-05', id = 1) {
  return {
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion, capabilities: {}, clientInfo: { name: 'tollgate-test', version: '1.0.0' } },
  };
}

/** A raw session: initialize + notifications/initialized; returns what later requests need. */
export async function openRawSession(
  gatewayUrl: string,
  token: string,
  protocolVersion = '2024-11-05',
): Promise<{ sessionId: string; initialized: McpExchange }> {
  const initialized = await mcpRaw(gatewayUrl, initializeRequest(protocolVersion), { token });
  if (initialized.status !== 200) throw new Error(`initialize: ${initialized.status} ${initialized.text}`);
  const sessionId = initialized.headers.get('mcp-session-id')!;
  const ack = await mcpRaw(gatewayUrl, { jsonrpc: '2.0', method: 'notifications/initialized' }, { token, sessionId });
  if (ack.status !== 202) throw new Error(`notifications/initialized: ${ack.status} ${ack.text}`);
  return { sessionId, initialized };
}

/** A JSON-RPC request inside a raw session. */
export function rawCall(
  gatewayUrl: string,
  token: string,
  sessionId: string,
  method: string,
  params: Record<string, unknown> = {},
  id = 2,
): Promise<McpExchange> {
  return mcpRaw(gatewayUrl, { jsonrpc: '2.0', id, method, params }, { token, sessionId });
}

/** The official SDK client, connected (initialize done) with the agent's bearer token. */
export async function connectSdkClient(gatewayUrl: string, token: string | undefined): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${gatewayUrl}/mcp`), {
    requestInit: { headers: token === undefined ? {} : { Authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: 'tollgate-process-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

/** The HTTP status and JSON-RPC error an SDK call was refused with. */
export async function sdkRefusal(
  call: Promise<unknown>,
): Promise<{ status: number; error: { code: number; message: string; data?: any } }> {
  const failure = await call.then(
    (value) => {
      throw new Error(`expected a refusal, got ${JSON.stringify(value)}`);
    },
    (error: unknown) => error,
  );
  if (!(failure instanceof StreamableHTTPError)) throw failure;
  // The SDK puts the response body at the end of its message.
  const body = /(\{.*\})\s*$/s.exec(failure.message)?.[1];
  if (body === undefined) throw new Error(`no JSON-RPC body in ${failure.message}`);
  return { status: failure.code!, error: JSON.parse(body).error };
}

export interface TestAgent {
  agentId: string;
  token: string;
}

/** Creates an agent and issues its token. */
export async function createAgentWithToken(
  gateway: GatewayClient,
  admin: string,
  agent: Record<string, unknown>,
): Promise<TestAgent> {
  const { agentId } = await gateway.createAgent(admin, agent);
  return { agentId, token: await gateway.agentToken(admin, agentId) };
}

/** Waits until the gateway is ready to serve agents (tools loaded, store and model healthy). */
export async function waitUntilReady(gatewayUrl: string): Promise<void> {
  await eventually(
    () => fetch(`${gatewayUrl}/health/ready`).then((response) => response.status),
    (status) => status === 200,
  );
}

/** The text content of a tools/call result, parsed as JSON. */
export function resultJson(result: any): any {
  const text = result?.content?.[0]?.text;
  if (typeof text !== 'string') throw new Error(`no text content in ${JSON.stringify(result)}`);
  return JSON.parse(text);
}
