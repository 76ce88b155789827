import {
  buildToolRegistry,
  describeToolProblem,
  ToolRegistry,
  type RegisteredTool,
  type ToolDefinition,
} from '@tollgate/gateway-core';
import { namedForAgents, type ToolSource } from './tool-naming.js';

/** Every downstream's tools together, as the management API reports a (re)load. */
export interface CatalogLoad {
  tools: string[];
  /** One line per definition left out. */
  problems: string[];
  loadedAt: string;
}

/** A tool refused because another downstream already serves a tool of that name. */
export interface ToolCollision {
  /** The name agents would see. */
  tool: string;
  /** The downstream whose tool keeps serving. */
  servedBy: string;
  /** The downstream whose tool was refused. */
  refused: string;
}

/** What one downstream's load did. */
export interface DownstreamLoad {
  downstream: string;
  /** Its tools as served, under the names agents see. */
  tools: string[];
  /** One line per definition left out (invalid, or a name too long once prefixed). */
  problems: string[];
  /**
   * Collisions this load is part of: its tools refused because another
   * downstream serves their names, and another's refused because this one's
   * name sorts first (a load can take a name from a downstream loaded before).
   */
  collisions: ToolCollision[];
  loadedAt: string;
}

/** One downstream as readiness, the dashboard and the management API show it. */
export interface DownstreamStatus {
  name: string;
  prefix: string;
  /** Its schema has been read at least once. */
  loaded: boolean;
  /** Tools served for it now. */
  toolCount: number;
  loadedAt: string | null;
  problems: string[];
  collisions: ToolCollision[];
  /** The last read of its schema that failed, when no read succeeded since. */
  lastError: { message: string; at: string } | null;
  /**
   * Its tools come from an OpenAPI document (whose read failures
   * readiness and the dashboard explain), not `/gw/schema`.
   */
  readsOpenApi?: boolean;
}

interface DownstreamState {
  source: ToolSource;
  /** null until its schema is first read. */
  tools: RegisteredTool[] | null;
  problems: string[];
  loadedAt: string | null;
  lastError: { message: string; at: string } | null;
}

/** The name the single-key form's downstream goes by. */
const SINGLE_DOWNSTREAM: ToolSource = { name: 'default', prefix: '' };

/**
 * The gateway's view of every downstream's tools. Each downstream is loaded
 * on its own; the registry agents see is rebuilt from all of them and swapped
 * whole, so a call in flight keeps the registry it started with, and one
 * downstream failing to load never takes another's tools away.
 *
 * Names are unique across downstreams: when two downstreams declare the
 * same name, the one whose configured name sorts first serves it and the
 * other's tool is refused (reported as a collision: readiness, dashboard,
 * log), on every instance alike.
 */
export class ToolCatalog {
  readonly #states: Map<string, DownstreamState>;
  /** Downstreams whose schemas have been read at least once. */
  readonly #read = new Set<string>();
  #owners = new Map<string, string>();
  #collisions: ToolCollision[] = [];
  #registry = new ToolRegistry([]);

  constructor(downstreams: readonly ToolSource[] = [SINGLE_DOWNSTREAM]) {
    this.#states = new Map(
      downstreams.map((source) => [
        source.name,
        { source, tools: null, problems: [], loadedAt: null, lastError: null },
      ]),
    );
  }

  get registry(): ToolRegistry {
    return this.#registry;
  }

  /** At least one downstream's schema has been read: the gateway can serve tools. */
  get loaded(): boolean {
    return this.#read.size > 0;
  }

  /** Every downstream's last load together; undefined until one has loaded. */
  get lastLoad(): CatalogLoad | undefined {
    const loaded = [...this.#states.values()].filter((state) => state.loadedAt !== null);
    if (loaded.length === 0) return undefined;
    return {
      tools: this.#registry.list().map((tool) => tool.definition.name),
      problems: loaded.flatMap((state) => [
        ...state.problems,
        ...this.#collisionsOf(state.source.name).map(describeCollision),
      ]),
      loadedAt: loaded
        .map((state) => state.loadedAt as string)
        .sort()
        .at(-1) as string,
    };
  }

  /**
   * Builds a downstream's tools from its `/gw/schema` JSON (or the definitions
   * imported from its OpenAPI document, with the operations `leftOut` and
   * why) and swaps the merged registry in.
   */
  load(downstream: string, schemaJson: unknown, now = new Date(), leftOut: readonly string[] = []): DownstreamLoad {
    const state = this.#state(downstream);
    const { registry, problems } = buildToolRegistry(schemaJson);
    const named = namedForAgents(state.source, registry.list());
    Object.assign(state, {
      tools: named.tools,
      problems: [...leftOut, ...problems.map(describeToolProblem), ...named.problems],
      loadedAt: now.toISOString(),
      lastError: null,
    });
    this.#read.add(downstream);
    this.#merge();
    return {
      downstream,
      tools: this.#registry
        .list()
        .flatMap((tool) => (tool.definition.downstream === downstream ? [tool.definition.name] : [])),
      problems: state.problems,
      collisions: this.#collisions.filter(
        (collision) => collision.refused === downstream || collision.servedBy === downstream,
      ),
      loadedAt: state.loadedAt as string,
    };
  }

  /**
   * A read of a downstream's schema failed: its tools (if any) stay, and it reports the failure until a read succeeds.
   */
  failed(downstream: string, error: unknown, now = new Date()): void {
    this.#state(downstream).lastError = {
      message: error instanceof Error ? error.message : String(error),
      at: now.toISOString(),
    };
  }

  /** Each downstream, in configuration order. */
  downstreams(): DownstreamStatus[] {
    const counts = new Map<string, number>();
    for (const owner of this.#owners.values()) counts.set(owner, (counts.get(owner) ?? 0) + 1);
    return [...this.#states.values()].map(({ source, tools, problems, loadedAt, lastError }) => ({
      name: source.name,
      prefix: source.prefix,
      loaded: tools !== null,
      toolCount: counts.get(source.name) ?? 0,
      loadedAt,
      problems,
      collisions: this.#collisionsOf(source.name),
      lastError,
      ...(source.readsOpenApi ? { readsOpenApi: true } : {}),
    }));
  }

  definitions(): ToolDefinition[] {
    return this.#registry.list().map((tool) => tool.definition);
  }

  /** Every scope any tool requires. */
  scopes(): string[] {
    return [...new Set(this.#registry.list().flatMap((tool) => tool.definition.requiredScopes))].sort();
  }

  #state(downstream: string): DownstreamState {
    const state = this.#states.get(downstream);
    if (state === undefined) throw new Error(`unknown downstream ${JSON.stringify(downstream)}`);
    return state;
  }

  #collisionsOf(downstream: string): ToolCollision[] {
    return this.#collisions.filter((collision) => collision.refused === downstream);
  }

  /**
   * Gives each name to one downstream: of those whose loaded tools declare
   * it, the one whose configured name sorts first. The configuration alone
   * decides, not which schema was read first nor which downstream served the
   * name before, so every instance (and every worker) routes a contested
   * name to the same downstream once both are loaded. Lists tools downstream
   * by downstream, in configuration order.
   */
  #merge(): void {
    const toolsOf = (name: string) => this.#states.get(name)?.tools ?? [];
    const owners = new Map<string, string>();
    const collisions: ToolCollision[] = [];
    for (const downstream of [...this.#states.keys()].sort()) {
      for (const tool of toolsOf(downstream)) {
        const owner = owners.get(tool.definition.name);
        if (owner === undefined) owners.set(tool.definition.name, downstream);
        else if (owner !== downstream)
          collisions.push({ tool: tool.definition.name, servedBy: owner, refused: downstream });
      }
    }
    this.#owners = owners;
    this.#collisions = collisions;
    this.#registry = new ToolRegistry(
      [...this.#states.keys()].flatMap((name) =>
        toolsOf(name).filter((tool) => owners.get(tool.definition.name) === name),
      ),
    );
  }
}

/** One line naming the tool and both downstreams. */
export function describeCollision({ tool, servedBy, refused }: ToolCollision): string {
  return (
    `tool "${tool}" of downstream ${refused} refused: downstream ${servedBy} already serves a tool of that name ` +
    `(set a Prefix on one of them)`
  );
}
