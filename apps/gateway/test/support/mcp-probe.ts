/**
 * Raw MCP requests over plain fetch, for tests that care about the HTTP
 * status and JSON-RPC error code of POST /mcp rather than about a client SDK.
 */
export interface McpReply {
  status: number;
  contentType: string;
  sessionId: string | null;
  /** The JSON-RPC message: parsed from the SSE `message` event or from a JSON body. */
  message: any;
}

const INITIALIZE_PARAMS = {
  protocolVersion: '2024-11-05',
  capabilities: {},
  clientInfo: { name: 'tollgate-control-plane-test', version: '1.0.0' },
};

export function mcpInitialize(gatewayUrl: string, token: string | undefined): Promise<McpReply> {
  return mcpRequest(gatewayUrl, token, { method: 'initialize', params: INITIALIZE_PARAMS });
}

export async function mcpRequest(
  gatewayUrl: string,
  token: string | undefined,
  { method, params = {}, sessionId }: { method: string; params?: object; sessionId?: string },
): Promise<McpReply> {
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
  };
  if (token !== undefined) headers.Authorization = `Bearer ${token}`;
  if (sessionId !== undefined) headers['Mcp-Session-Id'] = sessionId;
  const response = await fetch(`${gatewayUrl}/mcp`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const contentType = response.headers.get('Content-Type') ?? '';
  const text = await response.text();
  return {
    status: response.status,
    contentType,
    sessionId: response.headers.get('Mcp-Session-Id'),
    message: parseMessage(contentType, text),
  };
}

/** An SSE reply carries one `message` event whose data is the JSON-RPC response. */
function parseMessage(contentType: string, text: string): unknown {
  if (!contentType.startsWith('text/event-stream')) return text ? JSON.parse(text) : null;
  const data = text
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice('data:'.length).trimStart())
    .join('\n');
  return JSON.parse(data);
}
