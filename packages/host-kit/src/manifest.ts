import type { HttpMethod, ParameterSource, ToolDefinition } from './tool-definition.js';

/**
 * The build-time analyzer's output (`agent-tools.json`): pure JSON, so the
 * runtime never imports ts-morph and never needs generated code that imports
 * user classes. `tools` are final spec-2.5 definitions; `bindings` tell
 * `mountControllers` how to fill each method parameter from a request.
 */
export interface AgentToolManifest {
  version: 1;
  /** Whether nullability made inputs optional (strictNullChecks in effect). */
  strictNullChecks: boolean;
  tools: ToolDefinition[];
  controllers: ControllerBinding[];
}

export interface ControllerBinding {
  /** Class name as declared; matched against the classes passed to mountControllers. */
  className: string;
  prefix: string;
  actions: ActionBinding[];
}

export interface ActionBinding {
  methodName: string;
  httpMethod: HttpMethod;
  /** Hono path (`:id` form) the route is registered on. */
  path: string;
  /** Name of the tool when the action carries @AgentTool, else null. */
  toolName: string | null;
  parameters: ParameterBinding[];
}

/** How the kit converts a route/query string before calling the method. */
export type ScalarKind = 'string' | 'number' | 'integer' | 'bigint' | 'boolean' | 'date' | 'json';

/** One method parameter. The analyzer owns the exact variants. */
export type ParameterBinding =
  | { kind: 'route' | 'query'; name: string; scalar: ScalarKind; optional: boolean }
  | { kind: 'body'; name: string; optional: boolean }
  | { kind: 'header'; name: string; optional: boolean }
  | { kind: 'service'; token: string }
  | { kind: 'context' | 'request' | 'raw-request' | 'signal' };
