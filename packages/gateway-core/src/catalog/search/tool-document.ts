import type { RegisteredTool } from '../../tools/registry.js';

/** The text of one tool the index reads, by field; each field weighs differently in the ranking. */
export interface ToolDocument {
  id: string;
  /** The tool's name, split into words (`issues_list-for-repo` reads `issues list for repo`). */
  name: string;
  /** The first sentence of the description: what an OpenAPI summary or a host-kit description leads with. */
  summary: string;
  description: string;
  /** Parameter names and their descriptions. */
  parameters: string;
  /** Category or tags, and the route's literal segments (`/repos/{owner}/{repo}/pulls` reads `repos pulls`). */
  tags: string;
}

export const DOCUMENT_FIELDS = ['name', 'summary', 'description', 'parameters', 'tags'] as const;

/**
 * Long descriptions (an imported operation's may run to pages) are cut: past
 * this many characters they add words a question rarely uses and dilute the
 * ones that matter in BM25's length normalisation.
 */
const DESCRIPTION_CHARS = 1_000;
const PARAMETER_DESCRIPTION_CHARS = 200;

export function toolDocument(tool: RegisteredTool): ToolDocument {
  const { name, description, routePattern, declaredName } = tool.definition;
  const [summary, rest] = splitSummary(description);
  return {
    id: name,
    name: `${name} ${declaredName ?? ''}`,
    summary,
    description: rest.slice(0, DESCRIPTION_CHARS),
    parameters: parameterText(tool.inputSchema.properties),
    tags: [...tagsOf(tool), routeWords(routePattern)].join(' '),
  };
}

/** What, of a tool, changes its document: an unchanged fingerprint keeps its place in the index. */
export function documentFingerprint(document: ToolDocument): string {
  return JSON.stringify(document);
}

function splitSummary(description: string): [string, string] {
  const end = description.search(/(?<=[.!?])\s|\n/);
  return end < 0 ? [description, ''] : [description.slice(0, end), description.slice(end + 1)];
}

function parameterText(properties: Record<string, unknown>): string {
  return Object.entries(properties)
    .map(([name, schema]) => {
      const described =
        typeof schema === 'object' && schema !== null ? (schema as { description?: unknown }).description : undefined;
      return typeof described === 'string' ? `${name} ${described.slice(0, PARAMETER_DESCRIPTION_CHARS)}` : name;
    })
    .join(' ');
}

/** The category, and the OpenAPI tags an imported tool may carry. */
function tagsOf(tool: RegisteredTool): string[] {
  const tags = (tool.definition as { tags?: unknown }).tags;
  const listed = Array.isArray(tags) ? tags.filter((tag): tag is string => typeof tag === 'string') : [];
  return tool.definition.category ? [tool.definition.category, ...listed] : listed;
}

function routeWords(routePattern: string): string {
  return routePattern.replace(/\{[^}]*\}/g, ' ').replace(/\//g, ' ');
}
