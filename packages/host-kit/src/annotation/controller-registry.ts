/**
 * What the decorators leave behind at run time: the source name of each
 * controller class. `mountControllers` matches it against the manifest, which
 * the analyzer keyed on the same name. The decorator context's name is the
 * name written in the source, so it survives minification of `Class.name`.
 * A registered symbol rather than a module-local WeakMap: mounting still
 * works when the app and its controllers load different copies of the kit.
 */
const CONTROLLER = Symbol.for('@tollgate/host-kit/controller');

export function registerController(target: object, name: string): void {
  Object.defineProperty(target, CONTROLLER, { value: name, enumerable: false });
}

export function controllerNameOf(target: object): string | undefined {
  // Own property only: a subclass without its own @Controller is not a controller.
  return Object.hasOwn(target, CONTROLLER) ? (target as { [CONTROLLER]: string })[CONTROLLER] : undefined;
}
