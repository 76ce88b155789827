import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';

/**
 * Static reading of the Helm chart where no `helm` binary is available: the
 * templates' YAML skeleton (template actions removed, inline expressions
 * replaced by a marker) and every `.Values.*` path the templates use.
 */
export const TEMPLATE_MARKER = 'TEMPLATE';

export interface Chart {
  chart: Record<string, any>;
  values: Record<string, any>;
  /** File name → template text (templates/*.yaml and *.tpl). */
  templates: Map<string, string>;
}

export function readChart(dir: string): Chart {
  const templatesDir = join(dir, 'templates');
  const templates = new Map<string, string>();
  for (const name of readdirSync(templatesDir)) templates.set(name, readFileSync(join(templatesDir, name), 'utf8'));
  return {
    chart: parse(readFileSync(join(dir, 'Chart.yaml'), 'utf8')),
    values: parse(readFileSync(join(dir, 'values.yaml'), 'utf8')),
    templates,
  };
}

/**
 * The manifest a template describes, minus what only rendering decides: lines
 * that are nothing but template actions (`{{- if }}`, `{{- toYaml … | nindent }}`,
 * `{{- end }}`) are dropped, other expressions become TEMPLATE_MARKER. Fails
 * on YAML errors, duplicate keys included.
 */
export function skeleton(template: string): Record<string, any> {
  const text = template
    .split('\n')
    .filter((line) => !/^\s*(\{\{.*?\}\}\s*)+$/.test(line))
    .map((line) => line.replace(/\{\{.*?\}\}/g, TEMPLATE_MARKER))
    .join('\n');
  const documents = parseAllDocuments(text);
  if (documents.length !== 1) throw new Error(`expected one manifest, found ${documents.length}`);
  const [document] = documents;
  if (document!.errors.length > 0) throw new Error(document!.errors.map((error) => error.message).join('\n'));
  return document!.toJS();
}

/** Every `.Values.a.b` path the template text uses, as `a.b`. */
export function valuesPaths(template: string): string[] {
  return [...template.matchAll(/\.Values((?:\.[A-Za-z_][A-Za-z0-9_]*)+)/g)].map((match) => match[1]!.slice(1));
}

export function hasPath(values: Record<string, any>, path: string): boolean {
  let node: any = values;
  for (const part of path.split('.')) {
    if (node === null || typeof node !== 'object' || !(part in node)) return false;
    node = node[part];
  }
  return true;
}
