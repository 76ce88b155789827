import type { JsonRpcRequest } from '../../protocol/jsonrpc.js';
import type { ProtocolVersion } from '../../protocol/protocol-version.js';
import type { ToolCallResult } from '../../protocol/tool-result.js';
import type { AgentRecord } from '../../store/ports.js';
import { toMcpTool, type ToolsListResult } from '../../tools/listing.js';
import type { RegisteredTool, ToolRegistry } from '../../tools/registry.js';
import { ToolSearchIndex } from './tool-search-index.js';
import {
  CALL_TOOL,
  CALL_TOOL_TOOL,
  parseCallToolArguments,
  SEARCH_TOOLS,
  SEARCH_TOOLS_TOOL,
  type SearchToolsArguments,
} from './virtual-tools.js';

/**
 * `off`: the whole catalog; `on`: search_tools and call_tool;
 * `auto`: search once an agent may call more than the threshold.
 */
export type SearchModeSetting = 'off' | 'on' | 'auto';
export const SEARCH_MODE_SETTINGS: readonly SearchModeSetting[] = ['off', 'on', 'auto'];
export const DEFAULT_SEARCH_THRESHOLD = 64;

export interface ToolSearchModeOptions {
  /** The gateway's setting (`Gw:Catalog:Search`); an agent's own `toolSearch` overrides it. */
  mode: SearchModeSetting;
  /** For `auto` (`Gw:Catalog:SearchThreshold`). */
  threshold?: number;
  registry: () => ToolRegistry;
  /** The ranking; default lexical. */
  index?: ToolSearchIndex;
}

/**
 * Search mode for one gateway: whether an agent is in it, what its
 * tools/list shows, and what search_tools answers. The index follows the
 * registry: a new registry (a downstream reloaded) is synced into it on the
 * next search, re-indexing only the tools that changed.
 */
export class ToolSearchMode {
  readonly #mode: SearchModeSetting;
  readonly #threshold: number;
  readonly #registry: () => ToolRegistry;
  readonly #index: ToolSearchIndex;
  #indexed: ToolRegistry | null = null;

  constructor(options: ToolSearchModeOptions) {
    this.#mode = options.mode;
    this.#threshold = options.threshold ?? DEFAULT_SEARCH_THRESHOLD;
    this.#registry = options.registry;
    this.#index = options.index ?? new ToolSearchIndex();
  }

  /** Whether this agent sees search_tools and call_tool, given how many tools it may call. */
  isActive(agent: Pick<AgentRecord, 'toolSearch'>, callableTools: number): boolean {
    const mode = agent.toolSearch ?? this.#mode;
    return mode === 'on' || (mode === 'auto' && callableTools > this.#threshold);
  }

  /** The search-mode tools/list: the two tools, then the agent's pinned tools it may call. */
  listResult(
    callable: readonly RegisteredTool[],
    agent: Pick<AgentRecord, 'pinnedTools'>,
    version: ProtocolVersion,
  ): ToolsListResult {
    const pinned = new Set(agent.pinnedTools ?? []);
    const pinnedTools = callable
      .filter((tool) => pinned.has(tool.definition.name))
      .map((tool) => toMcpTool(tool, version));
    return { tools: [SEARCH_TOOLS_TOOL, CALL_TOOL_TOOL, ...pinnedTools] };
  }

  /** search_tools' answer: the tools found, best first, among those `callable` accepts. */
  async searchResult(
    args: SearchToolsArguments,
    callable: (tool: RegisteredTool) => boolean,
    version: ProtocolVersion,
  ): Promise<ToolCallResult> {
    const found = await this.search(args.query, args.limit, callable);
    const tools = found.map((tool) => {
      const { name, description, inputSchema } = toMcpTool(tool, version);
      return { name, description, inputSchema };
    });
    const structured = { tools };
    return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
  }

  /** The ranking as the dashboard shows it, and as search_tools uses it. */
  async search(query: string, limit: number, accept?: (tool: RegisteredTool) => boolean): Promise<RegisteredTool[]> {
    this.#sync();
    return (await this.#index.search(query, { limit, ...(accept && { accept }) })).map((found) => found.tool);
  }

  #sync(): void {
    const registry = this.#registry();
    if (registry === this.#indexed) return;
    this.#index.sync(registry.list());
    this.#indexed = registry;
  }
}

/**
 * A tools/call of search_tools or call_tool, as read before the agent is
 * known. call_tool is unwrapped at once, so every step ahead of the pipeline
 * (budget reservation, rate take, cache read) works on the tool it names.
 */
export type VirtualCall =
  | { kind: 'search_tools' }
  | { kind: 'call_tool'; ok: true; original: JsonRpcRequest; unwrapped: JsonRpcRequest }
  | { kind: 'call_tool'; ok: false; error: unknown };

/** What a tools/call request asks of search mode; null for a call of any other tool. */
export function readVirtualCall(call: JsonRpcRequest | null): VirtualCall | null {
  const name = call?.params?.name;
  if (name === SEARCH_TOOLS) return { kind: 'search_tools' };
  if (name !== CALL_TOOL) return null;
  try {
    const inner = parseCallToolArguments(call!.params!.arguments);
    return {
      kind: 'call_tool',
      ok: true,
      original: call!,
      unwrapped: { ...call!, params: { ...call!.params, name: inner.name, arguments: inner.arguments } },
    };
  } catch (error) {
    return { kind: 'call_tool', ok: false, error };
  }
}
