import { HTTP_METHODS } from '@tollgate/contract';
import type { HttpMethod } from '../tool-definition.js';

export { HTTP_METHODS };

export type VerbResolution = { ok: true; verb: HttpMethod } | { ok: false; problem: string; fix: string };

/**
 * Contract 4.6 verb resolution. `served` holds the methods of the routing-table
 * entries carrying the tool: one verb for `app.get` & co, `ALL` for
 * `app.all`, several for a multi-verb `app.on`. A declared verb must be one
 * the endpoint serves: anything else would advertise a call that always
 * answers 405.
 */
export function resolveVerb(served: ReadonlySet<string>, declared: HttpMethod | null): VerbResolution {
  const verbs = withoutImplicitHead(served);
  const servesEvery = verbs.includes('ALL');
  if (declared !== null) {
    if (servesEvery || verbs.includes(declared)) return { ok: true, verb: declared };
    return {
      ok: false,
      problem: `httpMethod ${declared} is not a verb the endpoint serves (it serves ${verbs.join(', ')})`,
      fix: `set httpMethod to one of ${verbs.join(', ')}, or register the route for ${declared}`,
    };
  }
  const only = verbs.length === 1 ? verbs[0] : undefined;
  if (only !== undefined && isToolVerb(only)) return { ok: true, verb: only };
  if (only !== undefined && !servesEvery) {
    return {
      ok: false,
      problem: `the endpoint serves only ${only}, which an agent tool cannot use`,
      fix: `mark a ${HTTP_METHODS.join(', ')} route instead`,
    };
  }
  return {
    ok: false,
    problem: `the verb is ambiguous: the endpoint serves ${servesEvery ? 'every verb (app.all)' : verbs.join(', ')}`,
    fix:
      `pass httpMethod to withAgentTool, one of ` +
      `${servesEvery ? HTTP_METHODS.join(', ') : verbs.filter(isToolVerb).join(', ')}`,
  };
}

// HEAD served beside GET is the same endpoint, not a second verb (contract 4.6).
function withoutImplicitHead(served: ReadonlySet<string>): string[] {
  const verbs = [...served];
  return served.has('GET') ? verbs.filter((verb) => verb !== 'HEAD') : verbs;
}

function isToolVerb(verb: string): verb is HttpMethod {
  return (HTTP_METHODS as readonly string[]).includes(verb);
}
