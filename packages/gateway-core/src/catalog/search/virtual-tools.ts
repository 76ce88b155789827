import { InvalidArgumentsError } from '../../errors.js';
import type { McpTool } from '../../tools/listing.js';

/** The two tools an agent in search mode sees instead of the catalog. */
export const SEARCH_TOOLS = 'search_tools';
export const CALL_TOOL = 'call_tool';
export const VIRTUAL_TOOL_NAMES: ReadonlySet<string> = new Set([SEARCH_TOOLS, CALL_TOOL]);

export const DEFAULT_SEARCH_LIMIT = 5;
export const MAX_SEARCH_LIMIT = 20;
/**
 * Longer than any need a model phrases; a longer query is refused
 * rather than tokenized (a 100 KB query would hold the event loop).
 */
export const MAX_QUERY_LENGTH = 1_000;

/** Short descriptions on purpose: they are the whole tools/list a search-mode agent pays for in its context. */
export const SEARCH_TOOLS_TOOL: McpTool = {
  name: SEARCH_TOOLS,
  description:
    'Find the tools that can do a task. Describe the need in plain words (e.g. "list open pull requests of a ' +
    'repository"); ' +
    'returns the best matching tools, best first, with their name, description and inputSchema. Then run one ' +
    'with call_tool.',
  inputSchema: {
    type: 'object',
    properties: {
      query: {
        type: 'string',
        description: 'What you want to do, in plain words.',
        minLength: 1,
        maxLength: MAX_QUERY_LENGTH,
      },
      limit: {
        type: 'integer',
        description: `How many tools to return (default ${DEFAULT_SEARCH_LIMIT}).`,
        minimum: 1,
        maximum: MAX_SEARCH_LIMIT,
      },
    },
    required: ['query'],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: true },
};

export const CALL_TOOL_TOOL: McpTool = {
  name: CALL_TOOL,
  description: 'Run a tool found with search_tools: its name, and arguments that follow its inputSchema.',
  inputSchema: {
    type: 'object',
    properties: {
      name: { type: 'string', description: 'The tool name, exactly as search_tools returned it.' },
      arguments: { type: 'object', description: "The tool's arguments, as its inputSchema describes." },
    },
    required: ['name'],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: false, destructiveHint: true },
};

export interface SearchToolsArguments {
  query: string;
  limit: number;
}

/** search_tools' arguments, or the error naming what is wrong (nothing is searched). */
export function parseSearchArguments(args: unknown): SearchToolsArguments {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    throw new InvalidArgumentsError('search_tools needs an object of arguments', [
      { path: 'arguments', message: 'must be an object' },
    ]);
  }
  const { query, limit = DEFAULT_SEARCH_LIMIT } = args as Record<string, unknown>;
  if (typeof query !== 'string' || query.trim() === '') {
    throw new InvalidArgumentsError('search_tools needs a query: what you want to do, in plain words', [
      { path: 'query', message: 'must be a non-empty string' },
    ]);
  }
  if (query.length > MAX_QUERY_LENGTH) {
    throw new InvalidArgumentsError(`The query is ${query.length} characters; at most ${MAX_QUERY_LENGTH}`, [
      { path: 'query', message: `must be at most ${MAX_QUERY_LENGTH} characters` },
    ]);
  }
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_SEARCH_LIMIT) {
    throw new InvalidArgumentsError(`limit must be an integer from 1 to ${MAX_SEARCH_LIMIT}`, [
      { path: 'limit', message: `must be an integer from 1 to ${MAX_SEARCH_LIMIT}` },
    ]);
  }
  for (const key of Object.keys(args)) {
    if (key !== 'query' && key !== 'limit')
      throw new InvalidArgumentsError(`search_tools takes query and limit, not ${JSON.stringify(key.slice(0, 64))}`, [
        { path: key.slice(0, 64), message: 'is not an argument of search_tools' },
      ]);
  }
  return { query, limit };
}

/** The tool call_tool names and its arguments: what tools/call would have been sent. */
export interface UnwrappedCall {
  name: string;
  arguments: Record<string, unknown>;
}

/** call_tool's arguments, or the error naming what is wrong (nothing is called, nothing charged). */
export function parseCallToolArguments(args: unknown): UnwrappedCall {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    throw new InvalidArgumentsError('call_tool needs an object of arguments: name and arguments', [
      { path: 'arguments', message: 'must be an object' },
    ]);
  }
  const { name, arguments: inner = {} } = args as Record<string, unknown>;
  if (typeof name !== 'string' || name === '') {
    throw new InvalidArgumentsError('call_tool needs the name of the tool to run', [
      { path: 'name', message: 'must be a non-empty string' },
    ]);
  }
  if (VIRTUAL_TOOL_NAMES.has(name)) {
    throw new InvalidArgumentsError(`call_tool runs the tools search_tools finds, not ${name}: call ${name} directly`, [
      { path: 'name', message: 'must name a tool of the catalog' },
    ]);
  }
  if (typeof inner !== 'object' || inner === null || Array.isArray(inner)) {
    throw new InvalidArgumentsError("call_tool passes arguments as an object, as the tool's inputSchema describes", [
      { path: 'arguments', message: 'must be an object' },
    ]);
  }
  return { name, arguments: inner as Record<string, unknown> };
}
