// Types of layers.mjs for the TypeScript tests that import it.

/** One relative import: the file, the file it names (`src`-relative, with `/`), and their layers. */
export interface Import {
  from: string;
  to: string;
  file: string;
  target: string;
}

export function sourceFiles(src: string): string[];
export function importGraph(src: string, layerOf: (path: string) => string): Import[];
export function upwardImports(imports: Import[], layers: readonly string[]): string[];
export function cycles(edges: Array<[string, string]>): string[][];
export function groupCycles(imports: Import[], groupOf: (path: string) => string): string[][];
export function moduleCycles(imports: Import[]): string[][];
