/**
 * Just enough of a Dockerfile reader for the deployment tests: stages,
 * instructions (line continuations joined, comments dropped), `ARG` defaults
 * substituted into `FROM`, exec-form arguments parsed as JSON.
 */

export interface Instruction {
  keyword: string;
  /** Everything after the keyword, continuations joined. */
  args: string;
}

export interface Stage {
  name: string | undefined;
  /** The base image with global `ARG` defaults substituted. */
  from: string;
  instructions: Instruction[];
}

export function readDockerfile(text: string): Stage[] {
  const globalArgs = new Map<string, string>();
  const stages: Stage[] = [];
  for (const { keyword, args } of instructions(text)) {
    if (keyword === 'FROM') {
      const [image = '', , name] = args.split(/\s+/);
      stages.push({ name: name?.toLowerCase(), from: substitute(image, globalArgs), instructions: [] });
    } else if (stages.length === 0 && keyword === 'ARG') {
      const [name = '', value = ''] = args.split('=', 2);
      globalArgs.set(name, value);
    } else {
      stages.at(-1)?.instructions.push({ keyword, args });
    }
  }
  return stages;
}

function instructions(text: string): Instruction[] {
  const joined = text
    .split('\n')
    .filter((line) => !/^\s*#/.test(line))
    .join('\n')
    .replace(/\\\n\s*/g, ' ');
  return joined
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const [keyword = ''] = line.split(/\s+/);
      return { keyword: keyword.toUpperCase(), args: line.slice(keyword.length).trim() };
    });
}

function substitute(value: string, args: Map<string, string>): string {
  return value.replace(
    /\$\{(\w+)\}|\$(\w+)/g,
    (_, braced: string | undefined, bare: string | undefined) => args.get(braced ?? bare ?? '') ?? '',
  );
}

export function stageNamed(stages: Stage[], name: string): Stage {
  const stage = stages.find((candidate) => candidate.name === name);
  if (!stage) throw new Error(`Dockerfile has no stage "${name}"`);
  return stage;
}

export function all(stage: Stage, keyword: string): string[] {
  return stage.instructions
    .filter((instruction) => instruction.keyword === keyword)
    .map((instruction) => instruction.args);
}

/** The last occurrence wins, as in Docker. */
export function last(stage: Stage, keyword: string): string | undefined {
  return all(stage, keyword).at(-1);
}

/** `["node", "dist/main.js"]` → the array; the shell form is refused (signals would go to a shell). */
export function execForm(args: string): string[] {
  const parsed: unknown = JSON.parse(args);
  if (!Array.isArray(parsed) || !parsed.every((item) => typeof item === 'string'))
    throw new Error(`not an exec form: ${args}`);
  return parsed;
}

/** `HEALTHCHECK --interval=10s ... CMD [...]` → the command array. */
export function healthcheckCommand(args: string): string[] {
  const match = /\bCMD\s+(\[.*\])\s*$/.exec(args);
  if (!match) throw new Error(`HEALTHCHECK without an exec-form CMD: ${args}`);
  return execForm(match[1]!);
}

/** `ENV A=1 B=2` lines of a stage, merged. */
export function environment(stage: Stage): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of all(stage, 'ENV')) {
    // NAME=value pairs; a value may be double-quoted to hold spaces.
    for (const [, name = '', quoted, plain] of line.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=(?:"([^"]*)"|(\S*))/g)) {
      env[name] = quoted ?? plain ?? '';
    }
  }
  return env;
}

/** `COPY --from=build /out/x/dist ./dist` lines of a stage. */
export function copiesFrom(stage: Stage, from: string): { source: string; target: string }[] {
  return all(stage, 'COPY')
    .map((args) => args.split(/\s+/))
    .filter((words) => words.includes(`--from=${from}`))
    .map((words) => {
      const paths = words.filter((word) => !word.startsWith('--'));
      return { source: paths[0]!, target: paths[1]! };
    });
}
