/** A marked endpoint the schema endpoint cannot describe (contract 7: 500 naming tool, route and fix). */
export interface Misconfiguration {
  tool: string;
  /** The route as registered, e.g. `ALL /orders/:id`. */
  route: string;
  problem: string;
  fix: string;
}

export function describeMisconfiguration({ tool, route, problem, fix }: Misconfiguration): string {
  return `Agent tool "${tool}" on ${route}: ${problem}. Fix: ${fix}.`;
}
