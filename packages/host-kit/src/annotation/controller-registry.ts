/**
 * What the decorators leave behind at run time: the source name of each
 * controller class. `mountControllers` matches it against the manifest, which
 * the analyzer keyed on the same name. The decorator context's name is the
 * name written in the source, so it survives minification of `Class.name`.
 */
const controllerNames = new WeakMap<object, string>();

export function registerController(target: object, name: string): void {
  controllerNames.set(target, name);
}

export function controllerNameOf(target: object): string | undefined {
  return controllerNames.get(target);
}
