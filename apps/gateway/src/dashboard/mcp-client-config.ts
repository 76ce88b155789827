/**
 * The `mcpServers` block desktop MCP clients (Claude Desktop, Cursor, VS Code…)
 * take, as docs/guide/clients.md documents it, ready to paste.
 */
export function mcpClientConfig(gatewayOrigin: string, token: string): string {
  const server = { type: 'http', url: `${gatewayOrigin}/mcp`, headers: { Authorization: `Bearer ${token}` } };
  return JSON.stringify({ mcpServers: { tollgate: server } }, null, 2);
}
