import { transform } from 'esbuild';

/** The slice of a Vite plugin this needs; typed here so the kit does not depend on vite. */
export interface LowerDecoratorsPlugin {
  name: string;
  enforce: 'pre';
  transform(code: string, id: string): Promise<{ code: string; map: string } | null>;
}

const TYPESCRIPT_FILE = /\.[cm]?tsx?$/;
// A line starting with `@name`: cheap pre-filter so only decorated files pay for a second transform.
const DECORATOR = /^\s*@[A-Za-z_$]/m;

/**
 * Vite 8 (and so Vitest 5) transforms TypeScript with Oxc, which cannot lower
 * TC39 standard decorators yet, and Node cannot run them: a test importing an
 * `@Controller` class fails with a SyntaxError. This plugin lowers decorated
 * files with esbuild first, as tsup does for the build.
 *
 *   // vitest.config.ts
 *   import { lowerDecorators } from '@tollgate/host-kit/vite';
 *   export default defineConfig({ plugins: [lowerDecorators()] });
 */
export function lowerDecorators(): LowerDecoratorsPlugin {
  return {
    name: 'tollgate-lower-decorators',
    enforce: 'pre',
    async transform(code, id) {
      const file = id.split('?')[0] ?? id;
      if (!TYPESCRIPT_FILE.test(file) || file.includes('/node_modules/') || !DECORATOR.test(code)) return null;
      const result = await transform(code, {
        loader: file.endsWith('x') ? 'tsx' : 'ts',
        format: 'esm',
        target: 'es2022',
        sourcemap: 'external',
        sourcefile: file,
        tsconfigRaw: { compilerOptions: { experimentalDecorators: false } },
      });
      return { code: result.code, map: result.map };
    },
  };
}
