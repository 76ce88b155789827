import type { ToolDefinition } from '../tools/definition.js';
import type { ForwardOptions, ForwardResult, Forwarder } from './forwarder.js';

/**
 * Sends each call to its tool's downstream, through that downstream's own
 * forwarder: its own connection pool, deadline, retries and breaker, so a
 * downstream that fails opens its own circuit and no other's.
 *
 * The forwarder is handed the tool as its downstream declared it (its own
 * name, not the prefixed one agents see): whatever names the tool to the
 * downstream, such as a signed assertion, names the tool the downstream knows.
 */
export class DownstreamRouter<F extends Forwarder = Forwarder> implements Forwarder {
  readonly #routes: ReadonlyMap<string, F>;
  /** Where a tool that names no downstream goes: the one route, when there is exactly one. */
  readonly #only: F | undefined;
  /** Each prefixed definition's declared view, made once: the hot path allocates nothing. */
  readonly #declared = new WeakMap<ToolDefinition, ToolDefinition>();

  constructor(routes: Iterable<readonly [name: string, forwarder: F]>) {
    this.#routes = new Map(routes);
    this.#only = this.#routes.size === 1 ? [...this.#routes.values()][0] : undefined;
  }

  /** The forwarder of one downstream. */
  get(downstream: string): F | undefined {
    return this.#routes.get(downstream);
  }

  /** Every downstream's forwarder, in configuration order. */
  entries(): IterableIterator<[string, F]> {
    return this.#routes.entries();
  }

  forward(
    tool: ToolDefinition,
    args: Record<string, unknown>,
    signal?: AbortSignal,
    options?: ForwardOptions,
  ): Promise<ForwardResult> {
    const route = tool.downstream === undefined ? this.#only : this.#routes.get(tool.downstream);
    // The registry only holds tools of configured downstreams: a miss is the gateway's bug, never the caller's.
    if (route === undefined)
      return Promise.reject(
        new Error(`No forwarder for downstream ${JSON.stringify(tool.downstream)} (tool ${tool.name})`),
      );
    return route.forward(this.#asDeclared(tool), args, signal, options);
  }

  #asDeclared(tool: ToolDefinition): ToolDefinition {
    if (tool.declaredName === undefined || tool.declaredName === tool.name) return tool;
    let declared = this.#declared.get(tool);
    if (declared === undefined) {
      declared = { ...tool, name: tool.declaredName };
      this.#declared.set(tool, declared);
    }
    return declared;
  }
}
