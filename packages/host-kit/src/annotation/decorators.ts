import type { AgentToolSettings } from '../tool-definition.js';
import { registerController } from './controller-registry.js';

/**
 * TypeScript 5 standard decorators. Routing and tool metadata are read at
 * build time by the analyzer from the source (so arguments must be static
 * literals); at run time only `@Controller` records anything.
 */

type MethodDecorator = (method: unknown, context: ClassMethodDecoratorContext) => void;
type ClassDecorator = (target: object, context: ClassDecoratorContext) => void;

/** Options of `@AgentTool`; the tool is named after the method, verb and route come from the routing decorators. */
export type AgentToolAnnotation = AgentToolSettings;

/** A class whose routed methods `mountControllers` registers under `prefix`. */
export function Controller(_prefix = ''): ClassDecorator {
  return (target, context) => {
    registerController(target, String(context.name));
  };
}

/**
 * `@Get(path)` and friends: the path is joined to the controller prefix; Hono syntax (`:id`, `:id{[0-9]+}`, `:id?`).
 */
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
