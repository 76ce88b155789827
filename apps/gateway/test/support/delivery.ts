/**
 * Tests written against contract 7's HTTP statuses (a 403, a 429, a 502…)
 * run their gateway with the setting that restores them: they prove that
 * `Gw:Mcp:ErrorDelivery=http-status` answers exactly as contract 7's table
 * says. MCP's default delivery is tested on its own (mcp-error-delivery,
 * the client matrix).
 */
export const HTTP_STATUS_DELIVERY = { Gw__Mcp__ErrorDelivery: 'http-status' } as const;
