import { relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { analyzeProject, formatDiagnostic, isManifestCurrent, writeManifest } from '../analyzer/index.js';

export interface CliIo {
  cwd: string;
  stdout: (line: string) => void;
  stderr: (line: string) => void;
}

const USAGE = `Usage:
  host-kit build [--project tsconfig.json] [--out agent-tools.json]   write the manifest
  host-kit check [--project tsconfig.json] [--out agent-tools.json]   fail when it is stale`;

/** The command line read by `node:util`'s parseArgs; throws on an unknown or malformed option. */
function parseCliArgs(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      project: { type: 'string', short: 'p', default: 'tsconfig.json' },
      out: { type: 'string', short: 'o', default: 'agent-tools.json' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

/** `host-kit build|check`; returns the exit code. Every diagnostic is printed before failing. */
export function runCli(argv: readonly string[], io: CliIo): number {
  let parsed: ReturnType<typeof parseCliArgs>;
  try {
    parsed = parseCliArgs(argv);
  } catch (error) {
    io.stderr(`host-kit: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  const [command, ...extra] = parsed.positionals;
  if (parsed.values.help) {
    io.stdout(USAGE);
    return 0;
  }
  if ((command !== 'build' && command !== 'check') || extra.length > 0) {
    io.stderr(USAGE);
    return 2;
  }

  const out = resolve(io.cwd, parsed.values.out);
  const { manifest, diagnostics } = analyzeProject({ tsconfig: resolve(io.cwd, parsed.values.project) });
  if (diagnostics.length > 0) {
    for (const diagnostic of diagnostics) io.stderr(formatDiagnostic(diagnostic, (file) => relative(io.cwd, file)));
    io.stderr(
      `host-kit: ${diagnostics.length} error${diagnostics.length === 1 ? '' : 's'}; ${relative(io.cwd, out)} not ` +
        `written`,
    );
    return 1;
  }
  if (command === 'check') {
    if (isManifestCurrent(out, manifest)) return 0;
    io.stderr(`host-kit: ${relative(io.cwd, out)} is stale or missing; run \`host-kit build\` and commit it`);
    return 1;
  }
  writeManifest(out, manifest);
  io.stdout(`host-kit: ${manifest.tools.length} tools in ${relative(io.cwd, out)}`);
  return 0;
}
