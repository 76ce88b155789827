import type { Context, MiddlewareHandler } from 'hono';
import { matchedRoutes } from 'hono/route';
import { findTargetHandler } from 'hono/utils/handler';
import { ASSERTION_HEADER, DEFAULT_ASSERTION_ISSUER } from '@tollgate/contract';
import { checkAssertion, type RefusalReason } from './assertion-check.js';
import './caller.js';
import { keySource, type GatewayKeys } from './key-source.js';
import { ReplayCache } from './replay-cache.js';

/** The request header the gateway's assertion comes in. */
export const GATEWAY_ASSERTION_HEADER = ASSERTION_HEADER;

export interface RequireGatewayOptions {
  /**
   * The gateway's public keys: its JWKS URL (`https://gateway.example/.well-known/jwks.json`),
   * or, in tests, a key set (`{ keys: [...] }`) or a jose key getter.
   */
  jwks: GatewayKeys;
  /**
   * What this API is called in the gateway's configuration: its
   * base URL unless the gateway sets an `Audience`. Several allowed.
   */
  audience: string | string[];
  /** The gateway's `Gw:Assertion:Issuer`. Default `tollgate`. */
  issuer?: string;
  /** Leeway for clocks that disagree, on expiry and issue time. Default 5. */
  clockToleranceSeconds?: number;
  /**
   * For a URL: how long a fetched key set is reused before it is fetched
   * again. Default 300 (the gateway's Cache-Control). Keep it under the
   * gateway's rotation period, so the set always holds the key now in use.
   */
  jwksCacheSeconds?: number;
  /** Assertion ids remembered against replay (each until it expires). Default 100,000. */
  replayCacheSize?: number;
  /**
   * Told why an assertion was refused (the caller only learns "expired" or
   * "invalid"). Default: a console warning the first time each reason occurs.
   */
  onRefusal?: (refusal: { reason: RefusalReason; detail: string; tool: string }, c: Context) => void;
  /** Injectable for tests. */
  clock?: () => Date;
}

/** Checks the assertion of a request to the route of `tool`: undefined to go on, or the refusal to send. */
type Guard = (c: Context, tool: string) => Promise<Response | undefined>;

// A registered symbol: the marked routes find the guard even when the app and the kit load different copies.
const GATEWAY_GUARD = Symbol.for('@tollgate/host-kit/gateway-guard');

type GuardCarrier = MiddlewareHandler & { [GATEWAY_GUARD]: Guard };

/**
 * Lets only the gateway call the routes marked as agent tools
 * (`withAgentTool`, or `@AgentTool` actions mounted by `mountControllers`):
 * a request to one must carry a valid `Tollgate-Assertion` for that tool, or
 * is refused with 401 JSON. The handler reads the caller with
 * `c.get('agent')`. Every other route (`/gw/schema`, health) passes untouched.
 *
 * The check runs where the route's mark is, so it applies to the routes
 * this middleware's path covers wherever `app.use` places it, before or
 * after the routes.
 *
 * @example
 * app.use(requireGateway({ jwks: 'https://gateway.example/.well-known/jwks.json',
 * audience: 'https://orders.example' }))
 */
export function requireGateway(options: RequireGatewayOptions): MiddlewareHandler {
  const guard = createGuard(options);
  const middleware: MiddlewareHandler = async (_c, next) => {
    await next();
  };
  return Object.assign(middleware, { [GATEWAY_GUARD]: guard }) satisfies GuardCarrier;
}

/**
 * Run by a marked route before its handler: the assertion check of the
 * `requireGateway` that covers this request, if any. Returns the refusal to
 * send, or undefined to go on (with `c.get('agent')` set when checked).
 */
export async function guardToolRoute(c: Context, tool: string): Promise<Response | undefined> {
  const guard = guardOf(c);
  return guard === undefined ? undefined : guard(c, tool);
}

function guardOf(c: Context): Guard | undefined {
  for (const route of matchedRoutes(c)) {
    const handler = findTargetHandler(route.handler) as Partial<GuardCarrier>;
    const guard = handler[GATEWAY_GUARD];
    if (guard !== undefined) return guard;
  }
  return undefined;
}

function createGuard(options: RequireGatewayOptions): Guard {
  const audience = options.audience;
  if (audience === undefined || (Array.isArray(audience) ? audience.length === 0 : audience === '')) {
    throw new TypeError(
      "requireGateway: audience is required (this API's base URL as the gateway knows it, or its configured Audience)",
    );
  }
  if (options.jwks === undefined || options.jwks === '')
    throw new TypeError("requireGateway: jwks is required (the gateway's /.well-known/jwks.json URL)");
  const rules = {
    keys: keySource(options.jwks, { cacheSeconds: options.jwksCacheSeconds ?? 300 }),
    audience,
    issuer: options.issuer ?? DEFAULT_ASSERTION_ISSUER,
    clockToleranceSeconds: options.clockToleranceSeconds ?? 5,
    replays: new ReplayCache(options.replayCacheSize ?? 100_000),
    clock: options.clock ?? (() => new Date()),
  };
  const onRefusal = options.onRefusal ?? warnOncePerReason();
  return async (c, tool) => {
    const token = c.req.header(GATEWAY_ASSERTION_HEADER);
    if (token === undefined || token === '') {
      onRefusal({ reason: 'missing', detail: `no ${GATEWAY_ASSERTION_HEADER} header`, tool }, c);
      return c.json(
        {
          error: 'gateway_assertion_required',
          message:
            `This endpoint answers only calls that come through the Tollgate gateway (no ` +
            `${GATEWAY_ASSERTION_HEADER} header).`,
        },
        401,
      );
    }
    const check = await checkAssertion(token, tool, rules);
    if (check.ok) {
      c.set('agent', check.caller);
      return undefined;
    }
    onRefusal({ reason: check.reason, detail: check.detail, tool }, c);
    if (check.reason === 'keys-unavailable') {
      return c.json(
        {
          error: 'gateway_keys_unavailable',
          message: "The gateway's public keys could not be fetched to check the call; try again shortly.",
        },
        503,
      );
    }
    // Like the gateway's own tokens: expired or invalid, never which check failed.
    const message =
      check.reason === 'expired' ? 'The gateway assertion has expired.' : 'The gateway assertion is invalid.';
    return c.json({ error: 'invalid_gateway_assertion', message }, 401);
  };
}

/** Says once per reason why assertions are refused: enough to find a wrong audience or issuer, never a flood. */
function warnOncePerReason(): NonNullable<RequireGatewayOptions['onRefusal']> {
  const said = new Set<RefusalReason>();
  return ({ reason, detail, tool }) => {
    if (said.has(reason)) return;
    said.add(reason);
    console.warn(
      `@tollgate/host-kit requireGateway: refused a call to tool ${tool} (${reason}: ${detail}); further ` +
        `refusals for this reason are not logged.`,
    );
  };
}
