import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { builtFileLines } from './api-report-lines.mjs';

const packages = fileURLToPath(new URL('../packages', import.meta.url));

function committedReports() {
  return readdirSync(packages).flatMap((name) => {
    const etc = `${packages}/${name}/etc`;
    if (!existsSync(etc)) return [];
    return readdirSync(etc)
      .filter((file) => file.endsWith('.api.md'))
      .map((file) => ({ path: `packages/${name}/etc/${file}`, text: readFileSync(`${etc}/${file}`, 'utf8') }));
  });
}

describe('the committed API reports', () => {
  it('name no built file or line, so only a change to the API changes them', () => {
    const reports = committedReports();
    expect(reports.map(({ path }) => path)).toContain('packages/gateway-core/etc/gateway-core.api.md');
    expect(reports.flatMap(({ path, text }) => builtFileLines(text).map((line) => `${path}: ${line}`))).toEqual([]);
  });
});

describe('builtFileLines', () => {
  it("finds API Extractor's unplaced findings (a chunk's name and line), not the placed ones", () => {
    const report = [
      '    // Warning: (ae-forgotten-export) The symbol "Actor" needs to be exported by the entry point index.d.ts',
      '    listResult(version: ProtocolVersion): ToolsListResult;',
      '// Warnings were encountered during analysis:',
      '//',
      '// dist/outcome-class-BcZbDSBP.d.ts:495:9 - (ae-forgotten-export) The symbol "McpTool" needs to be exported by the entry point index.d.ts',
      '// dist/index.d.ts:191:9 - (ae-forgotten-export) The symbol "ZodObjectSchema" needs to be exported by the entry point index.d.ts',
      '',
    ].join('\n');
    expect(builtFileLines(report)).toEqual([
      'dist/outcome-class-BcZbDSBP.d.ts: (ae-forgotten-export) The symbol "McpTool" needs to be exported by the entry point index.d.ts',
      'dist/index.d.ts: (ae-forgotten-export) The symbol "ZodObjectSchema" needs to be exported by the entry point index.d.ts',
    ]);
  });
});
