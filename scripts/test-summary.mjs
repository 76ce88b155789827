// Prints the plain closing line CI reads ("Tests: N passed, N failed, N skipped")
// from vitest's JSON report, so the run is judged by what really executed.
import { readFileSync } from 'node:fs';

const report = JSON.parse(readFileSync(new URL('../test-results/vitest.json', import.meta.url), 'utf8'));
const skipped = report.numPendingTests + report.numTodoTests;
console.log(`Tests: ${report.numPassedTests} passed, ${report.numFailedTests} failed, ${skipped} skipped`);
process.exit(report.numFailedTests > 0 || report.numTotalTests === 0 ? 1 : 0);
