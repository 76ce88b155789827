import type { MiddlewareHandler } from 'hono';
import { guardToolRoute } from '../gateway/require-gateway.js';
import { toAgentToolMetadata, type AgentToolMetadata, type AgentToolOptions } from './agent-tool-options.js';

// A registered symbol rather than a module-local WeakMap: the schema endpoint
// still finds the metadata when the app and the kit load different copies.
const AGENT_TOOL = Symbol.for('@tollgate/host-kit/agent-tool');

type MarkedHandler = MiddlewareHandler & { [AGENT_TOOL]: AgentToolMetadata };

/**
 * Marks the endpoint it is placed on as an agent tool. It carries metadata
 * for `GET /gw/schema`, and, where `requireGateway` covers the route, lets
 * only calls with the gateway's assertion for this tool through; otherwise
 * it passes every request on unchanged.
 * Options are validated now, so a mistake fails at startup with a TypeError.
 *
 * @example
 * app.get('/orders/:id', withAgentTool({ name: 'get_order', description: 'One order by id' }), handler)
 */
export function withAgentTool(options: AgentToolOptions): MiddlewareHandler {
  const metadata = toAgentToolMetadata(options);
  const middleware: MiddlewareHandler = async (c, next) => {
    const refused = await guardToolRoute(c, metadata.name);
    if (refused) return refused;
    await next();
  };
  return Object.assign(middleware, { [AGENT_TOOL]: metadata }) satisfies MarkedHandler;
}

/** The metadata a handler carries, or null for an ordinary handler. */
export function agentToolOf(handler: unknown): AgentToolMetadata | null {
  if (typeof handler !== 'function') return null;
  return (handler as Partial<MarkedHandler>)[AGENT_TOOL] ?? null;
}
