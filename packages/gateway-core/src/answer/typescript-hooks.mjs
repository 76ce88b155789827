// Only for running the answer worker from src (vitest): the sources import
// each other as `./x.js`, which exists only once built. Resolves such an
// import from a .ts file to the .ts file beside it. The worker also runs
// with --experimental-transform-types (the sources use parameter properties).
import { registerHooks } from 'node:module';

registerHooks({
  resolve(specifier, context, next) {
    if (specifier.startsWith('.') && specifier.endsWith('.js') && context.parentURL?.endsWith('.ts')) {
      try {
        return next(specifier, context);
      } catch {
        return next(`${specifier.slice(0, -'.js'.length)}.ts`, context);
      }
    }
    return next(specifier, context);
  },
});
