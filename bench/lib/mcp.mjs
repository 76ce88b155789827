// The HTTP exchanges of the benchmark: plain keep-alive requests (node:http,
// no fetch overhead on the measuring side) and the MCP session handshake.
import { Agent, request } from 'node:http';

/** The revision the bench speaks; `BENCH_PROTOCOL=2024-11-05` compares replies without resumable-stream framing. */
export const PROTOCOL_VERSION = process.env.BENCH_PROTOCOL ?? '2025-06-18';

/** One keep-alive connection per target, so sequential calls never pay a TCP handshake. */
export const keepAliveAgent = () => new Agent({ keepAlive: true, maxSockets: 1 });

/** One HTTP exchange; resolves with status, headers and the whole body as text. */
export function exchange(url, { method = 'GET', headers = {}, body, agent } = {}) {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers, agent }, (res) => {
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** `rpcId` may be a number or a string (autocannon's `[<id>]` placeholder). */
export const toolCallBody = (id, rpcId = 1) =>
  JSON.stringify({ jsonrpc: '2.0', id: rpcId, method: 'tools/call', params: { name: 'get_item', arguments: { id } } });

/** Headers of a request inside an MCP session (plus the agent's token for the gateway). */
export function sessionHeaders(sessionId, token) {
  const headers = {
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
    'Mcp-Session-Id': sessionId,
    'MCP-Protocol-Version': PROTOCOL_VERSION,
  };
  if (token) headers.Authorization = `Bearer ${token}`;
  return headers;
}

/** The stateless revision: no session, the `_meta` envelope in the body and its mirror in the headers. */
export const STATELESS_VERSION = '2026-07-28';

/** A 2026-07-28 tools/call of get_item: the same call as `toolCallBody`, with the envelope. */
export const statelessToolCallBody = (id, rpcId = 1) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: rpcId,
    method: 'tools/call',
    params: {
      name: 'get_item',
      arguments: { id },
      _meta: {
        'io.modelcontextprotocol/protocolVersion': STATELESS_VERSION,
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  });

/** Headers of a 2026-07-28 tools/call of get_item (no Mcp-Session-Id; the agent's token for the gateway). */
export function statelessHeaders(token) {
  return {
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
    'MCP-Protocol-Version': STATELESS_VERSION,
    'Mcp-Method': 'tools/call',
    'Mcp-Name': 'get_item',
    ...(token && { Authorization: `Bearer ${token}` }),
  };
}

/** initialize + notifications/initialized, as an MCP client does; returns the session id. */
export async function openSession(baseUrl, token, agent) {
  const headers = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
  if (token) headers.Authorization = `Bearer ${token}`;
  const init = await exchange(`${baseUrl}/mcp`, {
    method: 'POST',
    agent,
    headers,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: PROTOCOL_VERSION,
        capabilities: {},
        clientInfo: { name: 'tollgate-bench', version: '1.0.0' },
      },
    }),
  });
  const sessionId = init.headers['mcp-session-id'];
  if (init.status !== 200 || typeof sessionId !== 'string')
    throw new Error(`initialize at ${baseUrl}: ${init.status} ${init.text}`);
  const ack = await exchange(`${baseUrl}/mcp`, {
    method: 'POST',
    agent,
    headers: sessionHeaders(sessionId, token),
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  if (ack.status !== 202) throw new Error(`notifications/initialized at ${baseUrl}: ${ack.status} ${ack.text}`);
  return sessionId;
}

/**
 * The JSON-RPC message of a one-event SSE reply (or a JSON body). A resumable
 * stream (tools/call from 2025-03-26) opens with a priming event and gives
 * its message event an id.
 */
export function rpcMessage(reply) {
  const match =
    /^(?:id: \S+\r?\nretry: \d+\r?\ndata: \r?\n\r?\n)?(?:id: \S+\r?\n)?event: message\r?\ndata: (.*)\r?\n\r?\n$/s.exec(
      reply.text,
    );
  return JSON.parse(match ? match[1] : reply.text);
}

/** The tool's answer as JSON; throws unless the call succeeded. */
export function toolAnswer(reply) {
  if (reply.status !== 200) throw new Error(`tools/call: HTTP ${reply.status} ${reply.text}`);
  const message = rpcMessage(reply);
  const text = message.result?.content?.[0]?.text;
  if (message.error || message.result?.isError || typeof text !== 'string')
    throw new Error(`tools/call failed: ${reply.text}`);
  return JSON.parse(text);
}

/** Admin token from the API key, one agent with a budget no run can spend, its token. */
export async function agentToken(gatewayUrl, adminKey) {
  const post = async (path, bearer, body) => {
    const response = await fetch(`${gatewayUrl}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...(bearer ? { Authorization: `Bearer ${bearer}` } : {}) },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`POST ${path}: ${response.status} ${await response.text()}`);
    return response.json();
  };
  const admin = (await post('/auth/admin/token', null, { apiKey: adminKey })).token;
  const { agentId } = await post('/management/agents', admin, { label: 'bench', dailyTokenBudget: 1_000_000_000_000 });
  return (await post(`/management/agents/${agentId}/token`, admin, {})).token;
}
