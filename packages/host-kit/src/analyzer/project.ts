import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { Project, ts } from 'ts-morph';

export interface LoadedProject {
  project: Project;
  strictNullChecks: boolean;
}

/**
 * Opens the user's project as its tsconfig describes it. strictNullChecks is
 * pinned to what the user's own compiler would use (`strictNullChecks ??
 * strict ?? TypeScript >= 6`, where `strict` became the default) because the
 * analyzer's bundled TypeScript may be a different major than the project's,
 * and nullability decides which inputs are optional (contract 4.6 rule 6).
 */
export function loadProject(tsconfig: string, typescriptVersion?: string): LoadedProject {
  const tsConfigFilePath = resolve(tsconfig);
  const project = new Project({ tsConfigFilePath });
  const options = project.getCompilerOptions();
  const version = typescriptVersion ?? projectTypeScriptVersion(dirname(tsConfigFilePath));
  const strictNullChecks = options.strictNullChecks ?? options.strict ?? majorOf(version) >= 6;
  project.compilerOptions.set({ strictNullChecks });
  return { project, strictNullChecks };
}

/** The TypeScript the project itself installs, else the analyzer's own. */
function projectTypeScriptVersion(projectDir: string): string {
  try {
    const manifestPath = createRequire(resolve(projectDir, 'package.json')).resolve('typescript/package.json');
    const { version } = JSON.parse(readFileSync(manifestPath, 'utf8')) as { version: string };
    return version;
  } catch {
    return ts.version;
  }
}

function majorOf(version: string): number {
  return Number.parseInt(version, 10);
}
