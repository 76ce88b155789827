import { buildToolRegistry, describeToolProblem, ToolRegistry } from '@tollgate/gateway-core';

/**
 * The gateway's current view of the downstream's tools. Swapped whole on
 * (re)load, so a call in flight keeps the registry it started with.
 */
export class ToolCatalog {
  #registry = new ToolRegistry([]);
  #loaded = false;

  get registry(): ToolRegistry {
    return this.#registry;
  }

  get loaded(): boolean {
    return this.#loaded;
  }

  /** Builds a registry from `/gw/schema` JSON; returns one line per entry left out. */
  load(schemaJson: unknown): string[] {
    const { registry, problems } = buildToolRegistry(schemaJson);
    this.#registry = registry;
    this.#loaded = true;
    return problems.map(describeToolProblem);
  }

  /** Every scope any tool requires. */
  scopes(): string[] {
    return [...new Set(this.#registry.list().flatMap((tool) => tool.definition.requiredScopes))].sort();
  }
}
