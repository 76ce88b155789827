import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Message, Plugin } from 'esbuild';
import { analyzeProject, writeManifest, type Diagnostic } from '../analyzer/index.js';

export interface AgentToolsPluginOptions {
  /** The project's tsconfig.json. Default: `tsconfig.json` in the working directory. */
  project?: string;
  /** Where the manifest is written; `false` only checks. Default: `agent-tools.json`. */
  out?: string | false;
}

/**
 * An esbuild plugin (tsup: `esbuildPlugins: [agentTools()]`) that runs the
 * annotation analyzer when the build starts, writes the manifest, and fails
 * the build with every diagnostic, each at its source location.
 */
export function agentTools(options: AgentToolsPluginOptions = {}): Plugin {
  return {
    name: 'tollgate-agent-tools',
    setup(build) {
      build.onStart(() => {
        const { manifest, diagnostics } = analyzeProject({ tsconfig: resolve(options.project ?? 'tsconfig.json') });
        if (diagnostics.length > 0) return { errors: diagnostics.map(toMessage) };
        if (options.out !== false) writeManifest(resolve(options.out ?? 'agent-tools.json'), manifest);
        return undefined;
      });
    },
  };
}

function toMessage(diagnostic: Diagnostic): Partial<Message> {
  const lineText = readFileSync(diagnostic.file, 'utf8').split('\n')[diagnostic.line - 1] ?? '';
  return {
    text: `${diagnostic.code}: ${diagnostic.message}`,
    // esbuild columns are 0-based; ours follow tsc (1-based).
    location: {
      file: diagnostic.file,
      line: diagnostic.line,
      column: diagnostic.column - 1,
      lineText,
      length: 0,
      namespace: 'file',
      suggestion: '',
    },
  };
}
