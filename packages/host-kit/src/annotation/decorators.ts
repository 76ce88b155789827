import type { HttpMethod } from '../tool-definition.js';
import { registerController } from './controller-registry.js';

/**
 * TypeScript 5 standard decorators. Routing and tool metadata are read at
 * build time by the analyzer from the source (so arguments must be static
 * literals); at run time only `@Controller` records anything.
 */

type MethodDecorator = (method: unknown, context: ClassMethodDecoratorContext) => void;
type ClassDecorator = (target: object, context: ClassDecoratorContext) => void;

/** Options of `@AgentTool`; the tool is named after the method. */
export interface AgentToolAnnotation {
  /** Shown to the agent in the tool manifest. Required, non-empty. */
  description: string;
  /** When false (default) the gateway rejects calls through this tool that would mutate state. */
  allowWrite?: boolean;
  /** Token ceiling on the response body. Default 2000. */
  maxResponseTokens?: number;
  category?: string | null;
  /** Scopes the calling agent's JWT must contain. */
  requiredScopes?: readonly string[] | null;
  /** Must be the verb of the action's routing decorator; only a cross-check here. */
  httpMethod?: HttpMethod | Lowercase<HttpMethod> | null;
}

/** A class whose routed methods `mountControllers` registers under `prefix`. */
export function Controller(_prefix = ''): ClassDecorator {
  return (target, context) => {
    registerController(target, String(context.name));
  };
}

/** `@Get(path)` and friends: the path is joined to the controller prefix; Hono syntax (`:id`, `:id{[0-9]+}`, `:id?`). */
const routeDecorator =
  (_path = ''): MethodDecorator =>
  () => {};

export const Get = routeDecorator;
export const Post = routeDecorator;
export const Put = routeDecorator;
export const Patch = routeDecorator;
export const Delete = routeDecorator;

/** Marks a routed controller method as an agent tool. */
export function AgentTool(_options: AgentToolAnnotation): MethodDecorator {
  return () => {};
}
