// What keeps an API report about the API only. API Extractor writes a finding
// it can place on a declaration beside it ("// Warning: ..."), and one it
// cannot (a type named inside an inline object literal of a signature) at the
// bottom, with the built file's name and line: `dist/outcome-class-BcZbDSBP.d.ts:495:9`.
// tsup names its chunks by content hash, so any change to the package, a
// comment included, would change such a line and force `pnpm api:update`.
// scripts/api-report.mjs refuses reports with such lines; the cure is in the
// source: make the named type public, or name the inline literal as a type.

const BUILT_FILE_LINE = /^\/\/ (\S+\.d\.[cm]?ts):\d+:\d+ - (.*)$/;

/** Each line of an API report that names a built file's line, as `file: finding`. */
export function builtFileLines(report) {
  return report
    .split('\n')
    .map((line) => BUILT_FILE_LINE.exec(line))
    .filter((match) => match !== null)
    .map(([, file, finding]) => `${file}: ${finding}`);
}
