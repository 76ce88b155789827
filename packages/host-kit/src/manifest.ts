import type { HttpMethod, ToolDefinition } from './tool-definition.js';

/**
 * The build-time analyzer's output (`agent-tools.json`): pure JSON, so the
 * runtime never imports ts-morph and never needs generated code that imports
 * user classes. `tools` are final spec-2.5 definitions; `controllers` tell
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

/** How the kit converts a route, query or header string before calling the method. `json`: passed as is. */
export type ScalarKind = 'string' | 'number' | 'integer' | 'bigint' | 'boolean' | 'date' | 'json';

/** The JSON kind of a body value, checked (and for `date`/`bigint` converted) before the call. */
export type ValueKind = ScalarKind | 'array' | 'object';

/** One top-level property of an object body. */
export interface BodyField {
  name: string;
  kind: ValueKind;
  optional: boolean;
}

/** Parameters the kit supplies itself; never shown to the agent. */
export type FrameworkBinding = {
  kind: 'context' | 'request' | 'raw-request' | 'response' | 'signal' | 'body-stream';
};

/** How `mountControllers` fills one method parameter, in declaration order. */
export type ParameterBinding =
  | { kind: 'route'; name: string; scalar: ScalarKind }
  | { kind: 'query'; name: string; scalar: ScalarKind; list: boolean; optional: boolean }
  | { kind: 'header'; name: string; header: string; scalar: ScalarKind; optional: boolean }
  /** An object parameter: the whole JSON body, its properties checked. */
  | { kind: 'body'; optional: boolean; fields: BodyField[] }
  /** A scalar or array marked `FromBody`: one property of the JSON body. */
  | { kind: 'body-field'; name: string; value: ValueKind; optional: boolean }
  /** A `FromServices` parameter, looked up by type name in `mountControllers`'s `services`. */
  | { kind: 'service'; token: string }
  | FrameworkBinding;
