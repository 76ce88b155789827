import type { Context, Hono } from 'hono';
import type { ActionBinding, AgentToolManifest, ControllerBinding } from '../manifest.js';
import { guardToolRoute } from '../gateway/require-gateway.js';
import { BadRequestInput, bindArguments } from './bind-arguments.js';
import { controllerNameOf } from './controller-registry.js';

export interface MountControllersOptions {
  /** The `agent-tools.json` written by `host-kit build`. */
  manifest: AgentToolManifest;
  /** Values for `FromServices<T>` parameters, keyed by the type's name (`{ OrderRepository: repo }`). */
  services?: Readonly<Record<string, unknown>>;
}

/** A controller instance, or a class the kit instantiates with no arguments. */
export type ControllerInput = object | (new () => object);

// Controllers mount on an app of any environment, schema and base path.
// biome-ignore lint/suspicious/noExplicitAny: Hono's parameters are invariant; only `any` accepts every app.
type AnyHono = Hono<any, any, any>;

/**
 * Registers every routed method of the given `@Controller` instances on
 * `app`, binding parameters as the manifest's plan says. The return value
 * becomes the JSON response (a `Response` is sent as is, `undefined` is 204).
 * Mismatches between code and manifest fail here, at startup.
 */
export function mountControllers(
  app: AnyHono,
  controllers: readonly ControllerInput[],
  options: MountControllersOptions,
): void {
  const { manifest, services = {} } = options;
  if (manifest?.version !== 1 || !Array.isArray(manifest.controllers)) {
    throw new TypeError('mountControllers: manifest is not an agent-tools.json of version 1; run `host-kit build`');
  }
  for (const input of controllers) {
    const instance = typeof input === 'function' ? new (input as new () => object)() : input;
    const binding = bindingOf(instance, manifest);
    for (const action of binding.actions) mountAction(app, instance, binding, action, services);
  }
}

function bindingOf(instance: object, manifest: AgentToolManifest): ControllerBinding {
  const name = controllerNameOf(instance.constructor);
  if (name === undefined) {
    throw new TypeError(
      `mountControllers: ${instance.constructor.name || 'a controller'} is not decorated with @Controller`,
    );
  }
  const binding = manifest.controllers.find((controller) => controller.className === name);
  if (!binding) throw new TypeError(`mountControllers: ${name} is not in the manifest; run \`host-kit build\``);
  return binding;
}

function mountAction(
  app: AnyHono,
  instance: object,
  controller: ControllerBinding,
  action: ActionBinding,
  services: Readonly<Record<string, unknown>>,
): void {
  const method = (instance as Record<string, unknown>)[action.methodName];
  const where = `${controller.className}.${action.methodName}`;
  if (typeof method !== 'function') {
    throw new TypeError(`mountControllers: ${where} is in the manifest but not a method; run \`host-kit build\``);
  }
  for (const parameter of action.parameters) {
    if (parameter.kind === 'service' && !(parameter.token in services)) {
      throw new TypeError(
        `mountControllers: ${where} needs the service "${parameter.token}"; pass it in options.services`,
      );
    }
  }
  const tool = action.toolName;
  app.on(action.httpMethod, action.path, async (c: Context) => {
    // An @AgentTool action answers only the gateway where requireGateway covers it.
    const refused = tool === null ? undefined : await guardToolRoute(c, tool);
    if (refused) return refused;
    let args: unknown[];
    try {
      args = await bindArguments(c, action.parameters, services);
    } catch (error) {
      if (error instanceof BadRequestInput) return c.json({ error: 'invalid_parameter', message: error.message }, 400);
      throw error;
    }
    return toResponse(c, await method.apply(instance, args));
  });
}

function toResponse(c: Context, result: unknown): Response {
  if (result instanceof Response) return result;
  if (result === undefined) return c.body(null, 204);
  return c.json(result as object);
}
