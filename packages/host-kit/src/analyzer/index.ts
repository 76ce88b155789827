export { analyzeProject, type AnalysisResult, type AnalyzeOptions } from './analyze.js';
export { DiagnosticCode, formatDiagnostic, type Diagnostic } from './diagnostics.js';
export { serializeManifest } from './serialize.js';
export { isManifestCurrent, writeManifest } from './write-manifest.js';
