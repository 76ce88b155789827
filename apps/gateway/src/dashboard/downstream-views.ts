import type { BreakerState } from '@tollgate/gateway-core';
import type { ToolCatalog } from '../registry/tool-catalog.js';
import type { DownstreamView } from './views/downstreams.js';

/** One downstream's breaker state, by name. */
export type BreakerOf = (downstream: string) => BreakerState | undefined;

/** Each downstream as the pages show it: what the catalog knows of its tools, and its breaker. */
export function downstreamViews(deps: {
  catalog: Pick<ToolCatalog, 'downstreams'>;
  breakerOf: BreakerOf;
}): DownstreamView[] {
  return deps.catalog.downstreams().map((status) => ({ ...status, breaker: deps.breakerOf(status.name) ?? 'closed' }));
}
