import { buildToolRegistry, describeToolProblem, ToolRegistry, type ToolDefinition } from '@tollgate/gateway-core';

export interface CatalogLoad {
  tools: string[];
  /** One line per definition left out. */
  problems: string[];
  loadedAt: string;
}

/**
 * The gateway's current view of the downstream's tools. Swapped whole on
 * (re)load, so a call in flight keeps the registry it started with.
 */
export class ToolCatalog {
  #registry = new ToolRegistry([]);
  #last: CatalogLoad | undefined;

  get registry(): ToolRegistry {
    return this.#registry;
  }

  get loaded(): boolean {
    return this.#last !== undefined;
  }

  get lastLoad(): CatalogLoad | undefined {
    return this.#last;
  }

  /** Builds a registry from `/gw/schema` JSON and swaps it in. */
  load(schemaJson: unknown, now = new Date()): CatalogLoad {
    const { registry, problems } = buildToolRegistry(schemaJson);
    this.#registry = registry;
    this.#last = {
      tools: registry.list().map((tool) => tool.definition.name),
      problems: problems.map(describeToolProblem),
      loadedAt: now.toISOString(),
    };
    return this.#last;
  }

  definitions(): ToolDefinition[] {
    return this.#registry.list().map((tool) => tool.definition);
  }

  /** Every scope any tool requires. */
  scopes(): string[] {
    return [...new Set(this.#registry.list().flatMap((tool) => tool.definition.requiredScopes))].sort();
  }
}
