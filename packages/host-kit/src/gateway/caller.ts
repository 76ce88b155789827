/** Who a call that came through the gateway is for, as its assertion says; read with `c.get('agent')`. */
export interface GatewayCaller {
  /** The agent the gateway authenticated (`sub`). */
  agentId: string;
  /** The scopes granted to this call: in the agent's token and still held by the agent. */
  scopes: string[];
  /** The tool called, as this API declared it; always the route's own tool. */
  tool: string;
  /** One id per tool call, the same on the gateway's retries of it: for logs and idempotency. */
  callId: string;
}

declare module 'hono' {
  interface ContextVariableMap {
    /** Set by `requireGateway` on the routes marked as tools, before their handler runs. */
    agent: GatewayCaller;
  }
}
