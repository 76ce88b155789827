/**
 * Build errors of the annotation form. Codes are stable and never reused:
 * CI logs, docs and tests refer to them, so a retired rule keeps its number.
 */
export const DiagnosticCode = {
  /** `@AgentTool` without a description, or with an empty one. */
  MissingDescription: 'HK001',
  /** A decorator argument the analyzer cannot read without running code. */
  NonStaticArgument: 'HK002',
  /** A routed method or tool without a verb decorator. */
  MissingVerb: 'HK003',
  /** A method with more than one verb decorator. */
  MultipleVerbs: 'HK004',
  /** `@AgentTool` or a verb decorator on a method of a class without `@Controller`. */
  OutsideController: 'HK005',
  /** `@AgentTool` or a verb decorator on something other than a method. */
  NotAMethod: 'HK006',
  /** Two tools with the same name anywhere in the project. */
  DuplicateToolName: 'HK007',
  /** A tool name outside the MCP rule `^[A-Za-z0-9_.-]{1,128}$`. */
  InvalidToolName: 'HK008',
  /** A route segment no method parameter fills. */
  UnboundRouteSegment: 'HK009',
  /** More than one parameter bound from the request body. */
  MultipleBodies: 'HK010',
  /** A body parameter on a GET or DELETE action. */
  BodyOnBodilessVerb: 'HK011',
  /** A parameter or body property whose type cannot travel as JSON (functions, symbols). */
  NotJsonType: 'HK012',
  /** `httpMethod` names a verb the action does not serve. */
  UnservedHttpMethod: 'HK013',
  /** An unnamed `*` in the route: an agent has no input to fill it with. */
  UnnamedWildcard: 'HK014',
  /** `maxResponseTokens` that is not a positive integer. */
  InvalidMaxResponseTokens: 'HK015',
  /** Two controllers share a class name: bindings are keyed on it. */
  DuplicateControllerName: 'HK016',
  /** A `FromRoute` parameter whose name is not a segment of the route. */
  RouteParameterWithoutSegment: 'HK017',
  /** A parameter the kit cannot bind (rest parameter, destructured scalar). */
  UnbindableParameter: 'HK018',
  /**
   * A `paramHeaders` mark MCP 2026-07-28 does not allow (`x-mcp-header`):
   * bad name, duplicate, unknown or non-primitive input.
   */
  InvalidParamHeader: 'HK019',
} as const;

export type DiagnosticCode = (typeof DiagnosticCode)[keyof typeof DiagnosticCode];

export interface Diagnostic {
  code: DiagnosticCode;
  message: string;
  /** Absolute path of the source file. */
  file: string;
  /** 1-based. */
  line: number;
  /** 1-based. */
  column: number;
}

/** `file:line:col - error HKnnn: message`, the shape of tsc's own output, so editors link it. */
export function formatDiagnostic(diagnostic: Diagnostic, relativeTo?: (file: string) => string): string {
  const file = relativeTo ? relativeTo(diagnostic.file) : diagnostic.file;
  return `${file}:${diagnostic.line}:${diagnostic.column} - error ${diagnostic.code}: ${diagnostic.message}`;
}
