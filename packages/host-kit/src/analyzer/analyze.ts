import { dirname, relative, resolve } from 'node:path';
import {
  Node,
  SyntaxKind,
  type ClassDeclaration,
  type Decorator,
  type MethodDeclaration,
  type Project,
  type SourceFile,
} from 'ts-morph';
import type { ActionBinding, AgentToolManifest, ControllerBinding, ParameterBinding } from '../manifest.js';
import { markParamHeaders } from '../param-headers.js';
import { assembleInputs, type InputCandidate } from '../schema/assemble-inputs.js';
import { toRoutePattern } from '../schema/route-pattern.js';
import { TOOL_NAME_PATTERN, type HttpMethod, type ToolDefinition } from '../tool-definition.js';
import { classifyParameter, type ActionContext } from './classify-parameter.js';
import { DiagnosticCode, type Diagnostic } from './diagnostics.js';
import { KitSymbols, decoratorTarget } from './kit-symbols.js';
import { loadProject } from './project.js';
import { readStatic, type StaticValue } from './static-value.js';
import { toToolOptions } from './tool-options.js';

export interface AnalyzeOptions {
  /** The project's tsconfig.json. */
  tsconfig: string;
  /** The TypeScript version deciding the strictNullChecks default; read from the project when absent. */
  typescriptVersion?: string;
}

export interface AnalysisResult {
  /** Complete only when `diagnostics` is empty. */
  manifest: AgentToolManifest;
  diagnostics: Diagnostic[];
}

const VERB_DECORATORS: Record<string, HttpMethod> = {
  Get: 'GET',
  Post: 'POST',
  Put: 'PUT',
  Patch: 'PATCH',
  Delete: 'DELETE',
};
const ROUTING_DECORATORS = new Set([...Object.keys(VERB_DECORATORS), 'AgentTool']);
const BODILESS_VERBS = new Set<HttpMethod>(['GET', 'DELETE']);

/** Reads every `@Controller` class of a project into a manifest, collecting all diagnostics. */
export function analyzeProject(options: AnalyzeOptions): AnalysisResult {
  const { project, strictNullChecks } = loadProject(options.tsconfig, options.typescriptVersion);
  return new Analysis(project, strictNullChecks, options.tsconfig).run();
}

interface KitDecorator {
  name: string;
  decorator: Decorator;
}

interface Located<T> {
  value: T;
  node: Node;
}

class Analysis {
  readonly #kit = new KitSymbols();
  readonly #diagnostics: Diagnostic[] = [];
  readonly #tools: Located<ToolDefinition>[] = [];
  readonly #controllers: Located<ControllerBinding>[] = [];

  /** Paths in messages are relative to it, so diagnostics read the same on every machine. */
  readonly #projectDir: string;

  constructor(
    private readonly project: Project,
    private readonly strictNullChecks: boolean,
    tsconfig: string,
  ) {
    this.#projectDir = dirname(resolve(tsconfig));
  }

  run(): AnalysisResult {
    for (const file of this.project.getSourceFiles()) {
      if (file.isDeclarationFile() || file.isInNodeModules()) continue;
      this.#analyzeFile(file);
    }
    this.#reportDuplicates(this.#tools, (tool) => tool.name, DiagnosticCode.DuplicateToolName, 'tool name');
    this.#reportDuplicates(
      this.#controllers,
      (c) => c.className,
      DiagnosticCode.DuplicateControllerName,
      'controller class name',
    );
    return {
      manifest: {
        version: 1,
        strictNullChecks: this.strictNullChecks,
        tools: this.#tools.map((tool) => tool.value).sort((a, b) => compare(a.name, b.name)),
        controllers: this.#controllers.map((c) => c.value).sort((a, b) => compare(a.className, b.className)),
      },
      diagnostics: this.#diagnostics.sort(
        (a, b) => compare(a.file, b.file) || a.line - b.line || a.column - b.column || compare(a.code, b.code),
      ),
    };
  }

  #analyzeFile(file: SourceFile): void {
    for (const decorator of file.getDescendantsOfKind(SyntaxKind.Decorator)) {
      const parent = decorator.getParent();
      const name = this.#kitNameOf(decorator);
      if (name === null || !ROUTING_DECORATORS.has(name)) continue;
      if (!Node.isMethodDeclaration(parent) || parent.isStatic()) {
        this.#report(
          decorator,
          DiagnosticCode.NotAMethod,
          `@${name} can only decorate an instance method of a @Controller class`,
        );
      }
    }
    for (const declaration of file.getDescendantsOfKind(SyntaxKind.ClassDeclaration)) this.#analyzeClass(declaration);
  }

  #analyzeClass(declaration: ClassDeclaration): void {
    const controller = this.#kitDecorators(declaration.getDecorators()).find((d) => d.name === 'Controller');
    const routed = declaration
      .getInstanceMethods()
      .map((method) => ({ method, decorators: this.#kitDecorators(method.getDecorators()) }))
      .filter(({ decorators }) => decorators.some((d) => ROUTING_DECORATORS.has(d.name)));
    if (!controller) {
      for (const { decorators } of routed) {
        const first = decorators.find((d) => ROUTING_DECORATORS.has(d.name)) as KitDecorator;
        this.#report(
          first.decorator,
          DiagnosticCode.OutsideController,
          `@${first.name} is on a method of "${declaration.getName() ?? '(anonymous)'}", which is not a ` +
            `@Controller class`,
        );
      }
      return;
    }
    const prefix = this.#readPath(controller);
    const className = declaration.getName();
    if (prefix === null || className === undefined) return;
    const actions = routed.flatMap(({ method, decorators }) => this.#analyzeAction(method, decorators, prefix));
    this.#controllers.push({ value: { className, prefix, actions }, node: declaration.getNameNode() ?? declaration });
  }

  #analyzeAction(method: MethodDeclaration, decorators: KitDecorator[], prefix: string): ActionBinding[] {
    const methodName = method.getName();
    const verbs = decorators.filter((d) => d.name in VERB_DECORATORS);
    const tool = decorators.find((d) => d.name === 'AgentTool');
    if (verbs.length !== 1) {
      const [code, message, at] =
        verbs.length === 0
          ? [
              DiagnosticCode.MissingVerb,
              `"${methodName}" has @AgentTool but no verb decorator (@Get, @Post, @Put, @Patch or @Delete)`,
              tool?.decorator,
            ]
          : [
              DiagnosticCode.MultipleVerbs,
              `"${methodName}" has ${verbs.length} verb decorators; an action serves exactly one verb`,
              verbs[1]?.decorator,
            ];
      this.#report(at ?? method, code, message);
      return [];
    }
    const verb = verbs[0] as KitDecorator;
    const httpMethod = VERB_DECORATORS[verb.name] as HttpMethod;
    const path = this.#readPath(verb);
    if (path === null) return [];
    const honoPath = joinPath(prefix, path);
    const pattern = toRoutePattern(honoPath);
    if (!pattern.ok) {
      this.#report(
        verb.decorator,
        DiagnosticCode.UnnamedWildcard,
        `route "${honoPath}" has an unnamed "*" an agent cannot fill; name it, e.g. ":path{.+}"`,
      );
      return [];
    }

    const context: ActionContext = {
      kit: this.#kit,
      checker: this.project.getTypeChecker().compilerObject,
      location: method,
      routeParams: new Set(pattern.routeParams),
      paramDocs: paramDocsOf(method),
    };
    let failed = false;
    const parameters: ParameterBinding[] = [];
    const inputs: InputCandidate[] = [];
    const unclassified = new Set<string>();
    for (const parameter of method.getParameters()) {
      const classified = classifyParameter(parameter, context);
      if (!classified.ok) {
        this.#report(parameter, classified.code, classified.message);
        unclassified.add(parameter.getName());
        failed = true;
        continue;
      }
      parameters.push(classified.parameter.binding);
      inputs.push(...classified.parameter.inputs);
    }
    const unbound = pattern.routeParams.filter((segment) => !unclassified.has(segment));
    failed = this.#checkBindings(method, httpMethod, unbound, parameters, verb) || failed;

    const toolName = tool ? this.#analyzeTool(method, tool, httpMethod, pattern.routePattern, inputs, failed) : null;
    return [
      { methodName, httpMethod, path: honoPath, toolName, parameters: withShadowedFieldsOptional(parameters, inputs) },
    ];
  }

  /** Rules across parameters: one body, no body on GET/DELETE, every route segment bound. Returns whether any failed.
   * `routeParams` leaves out segments whose parameter already failed, so one mistake is reported once. */
  #checkBindings(
    method: MethodDeclaration,
    httpMethod: HttpMethod,
    routeParams: string[],
    parameters: ParameterBinding[],
    verb: KitDecorator,
  ): boolean {
    let failed = false;
    const name = method.getName();
    if (parameters.filter((p) => p.kind === 'body').length > 1) {
      this.#report(
        method.getNameNode(),
        DiagnosticCode.MultipleBodies,
        `"${name}" has more than one body parameter; a request has one JSON body`,
      );
      failed = true;
    }
    if (BODILESS_VERBS.has(httpMethod) && parameters.some((p) => p.kind === 'body' || p.kind === 'body-field')) {
      this.#report(
        method.getNameNode(),
        DiagnosticCode.BodyOnBodilessVerb,
        `"${name}" is a ${httpMethod} action but takes a body parameter; use query parameters (FromQuery) or ` +
          `another verb`,
      );
      failed = true;
    }
    const bound = new Set(parameters.flatMap((p) => (p.kind === 'route' ? [p.name] : [])));
    for (const segment of routeParams.filter((param) => !bound.has(param))) {
      this.#report(
        verb.decorator,
        DiagnosticCode.UnboundRouteSegment,
        `route segment ":${segment}" of "${name}" has no parameter named "${segment}"`,
      );
      failed = true;
    }
    return failed;
  }

  #analyzeTool(
    method: MethodDeclaration,
    tool: KitDecorator,
    httpMethod: HttpMethod,
    routePattern: string,
    inputs: InputCandidate[],
    failed: boolean,
  ): string | null {
    const name = method.getName();
    const argument = this.#readArgument(tool);
    if (argument === null) return null;
    const { options, problems } = toToolOptions(argument.value);
    for (const problem of problems) this.#report(tool.decorator, problem.code, `${problem.message} ("${name}")`);
    if (!TOOL_NAME_PATTERN.test(name)) {
      this.#report(
        method.getNameNode(),
        DiagnosticCode.InvalidToolName,
        `tool name "${name}" must match ${TOOL_NAME_PATTERN} (the MCP tool-name rule)`,
      );
      return null;
    }
    if (options.httpMethod !== null && options.httpMethod !== httpMethod) {
      this.#report(
        tool.decorator,
        DiagnosticCode.UnservedHttpMethod,
        `httpMethod ${options.httpMethod} of "${name}" is not served: the action is ${httpMethod}; remove ` +
          `httpMethod or set it to ${httpMethod}`,
      );
      return null;
    }
    if (failed || problems.length > 0) return null;
    const { httpMethod: _declared, paramHeaders, ...metadata } = options;
    const assembled = assembleInputs(inputs);
    const marked = markParamHeaders(assembled.inputSchema, paramHeaders);
    if (marked.problem !== null) {
      this.#report(tool.decorator, DiagnosticCode.InvalidParamHeader, `${marked.problem} ("${name}")`);
      return null;
    }
    this.#tools.push({
      value: {
        name,
        ...metadata,
        httpMethod,
        routePattern,
        parameterSources: assembled.parameterSources,
        inputSchema: marked.inputSchema,
      },
      node: method.getNameNode(),
    });
    return name;
  }

  /** The path argument of `@Controller`/`@Get`...: absent means "", anything but a string literal is HK002. */
  #readPath(kitDecorator: KitDecorator): string | null {
    const argument = this.#readArgument(kitDecorator);
    if (argument === null) return null;
    if (argument.value === undefined) return '';
    if (typeof argument.value === 'string') return argument.value;
    this.#report(
      kitDecorator.decorator,
      DiagnosticCode.NonStaticArgument,
      `@${kitDecorator.name} takes a path string literal`,
    );
    return null;
  }

  /** The first argument read statically; `{ value: undefined }` when there is none, null after a diagnostic. */
  #readArgument({ name, decorator }: KitDecorator): { value: StaticValue | undefined } | null {
    const expression = decorator.getExpression();
    if (!Node.isCallExpression(expression)) {
      this.#report(decorator, DiagnosticCode.NonStaticArgument, `@${name} must be called: @${name}(...)`);
      return null;
    }
    const [first] = expression.getArguments();
    if (!first) return { value: undefined };
    const read = readStatic(first);
    if (read.ok) return { value: read.value };
    this.#report(
      read.node,
      DiagnosticCode.NonStaticArgument,
      `@${name} arguments must be static literals: "${read.node.getText()}" is only known at run time`,
    );
    return null;
  }

  #kitDecorators(decorators: Decorator[]): KitDecorator[] {
    return decorators.flatMap((decorator) => {
      const name = this.#kitNameOf(decorator);
      return name === null ? [] : [{ name, decorator }];
    });
  }

  #kitNameOf(decorator: Decorator): string | null {
    const target = decoratorTarget(decorator);
    return target ? this.#kit.kitNameOf(target) : null;
  }

  #reportDuplicates<T>(items: Located<T>[], keyOf: (value: T) => string, code: DiagnosticCode, what: string): void {
    const first = new Map<string, Node>();
    for (const { value, node } of items) {
      const key = keyOf(value);
      const earlier = first.get(key);
      if (!earlier) {
        first.set(key, node);
        continue;
      }
      const { line, column } = positionOf(earlier);
      const file = relative(this.#projectDir, earlier.getSourceFile().getFilePath());
      this.#report(node, code, `duplicate ${what} "${key}", first declared at ${file}:${line}:${column}`);
    }
  }

  #report(node: Node, code: DiagnosticCode, message: string): void {
    this.#diagnostics.push({ code, message, file: node.getSourceFile().getFilePath(), ...positionOf(node) });
  }
}

/**
 * A body property that shares its name with a route or query input is sent
 * there, not in the body (precedence, contract 4.6 rule 2), so the binding must
 * not demand it in the body.
 */
function withShadowedFieldsOptional(parameters: ParameterBinding[], inputs: InputCandidate[]): ParameterBinding[] {
  const shadowing = new Set(inputs.filter((input) => input.source !== 'body').map((input) => input.name));
  return parameters.map((parameter) =>
    parameter.kind === 'body'
      ? {
          ...parameter,
          fields: parameter.fields.map((field) => (shadowing.has(field.name) ? { ...field, optional: true } : field)),
        }
      : parameter,
  );
}

function positionOf(node: Node): { line: number; column: number } {
  const { line, column } = node.getSourceFile().getLineAndColumnAtPos(node.getStart());
  return { line, column };
}

/** `@param name text` of the method's TSDoc (a leading "- " separator dropped). */
function paramDocsOf(method: MethodDeclaration): Map<string, string> {
  const docs = new Map<string, string>();
  for (const tag of method.getJsDocs().flatMap((doc) => doc.getTags())) {
    if (!Node.isJSDocParameterTag(tag)) continue;
    const text = (tag.getCommentText() ?? '').replace(/^\s*-\s*/, '').trim();
    if (text !== '') docs.set(tag.getName(), text);
  }
  return docs;
}

/** `@Controller('/orders/')` + `@Get(':id')` → `/orders/:id`. */
export function joinPath(prefix: string, path: string): string {
  const joined = `/${prefix}/${path}`.replace(/\/{2,}/g, '/');
  return joined.length > 1 && joined.endsWith('/') ? joined.slice(0, -1) : joined;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
