import { startRedisServer, type RedisServer, type RedisServerOptions } from '@tollgate/gateway-core/testing';
import { startControlledDownstream, type ControlledDownstream } from './controlled-downstream.js';
import { GatewayClient } from './gateway-client.js';
import { waitUntilReady } from './mcp.js';
import { freePort, startDownstream, startGateway, type GatewayOptions, type RunningProcess } from './processes.js';
import { startRecordingDownstream, type RecordingDownstream } from './recording-downstream.js';

/**
 * What a gateway of a pair talks to:
 * - `'sample'`: the built sample downstream, as its own process (the default),
 *   its tool routes open to direct calls (REQUIRE_GATEWAY=false);
 * - `{ guardedSample }`: the same, requiring the first gateway's signed
 *   assertion on its tool routes (host-kit's requireGateway), with `env` added to its own;
 * - `'controlled'`: a {@link ControlledDownstream} in the test process;
 * - `{ recording: tools }`: a {@link RecordingDownstream} serving these tool definitions;
 * - anything else with a `url`: a downstream the test already runs (shared by
 *   several pairs, say); the pair uses it and leaves it running.
 */
export type DownstreamChoice =
  | 'sample'
  | 'controlled'
  | { readonly guardedSample: { readonly env?: Readonly<Record<string, string>> } }
  | { readonly recording: readonly object[] }
  | { readonly url: string };

export type DownstreamOf<D> = D extends 'controlled'
  ? ControlledDownstream
  : D extends { readonly recording: readonly object[] }
    ? RecordingDownstream
    : D extends { readonly url: string }
      ? D
      : RunningProcess;

/** `true` starts a throwaway redis-server (options as for `startRedisServer`); `false` keeps the in-memory store. */
export type RedisChoice = boolean | RedisServerOptions;

/** One gateway's own settings; the downstream and the store address come from the pair. */
export type GatewaySettings = Omit<GatewayOptions, 'downstreamUrl' | 'redisUrl'>;

export interface PairOptions<D extends DownstreamChoice = DownstreamChoice, R extends RedisChoice = RedisChoice> {
  downstream?: D;
  redis?: R;
  /** The gateway's settings; an array starts one gateway per entry, all on the same downstream and store. */
  gateway?: GatewaySettings | readonly GatewaySettings[];
  /** How many gateways with the same `gateway` settings (default 1); not with an array. */
  instances?: number;
  /** Wait until every gateway's /health/ready answers 200 (default true). */
  ready?: boolean;
}

/** Whether a pair started with this `redis` choice has a redis-server: `boolean` when the test decides at run time. */
export type HasRedis<R extends RedisChoice> = R extends false ? false : true;

/** `WithRedis`: `true` when the pair has a redis-server, `boolean` when it may have one. */
export interface Pair<D = RunningProcess, WithRedis extends boolean = false> {
  readonly downstream: D;
  readonly redis: WithRedis extends true ? RedisServer : undefined;
  /** Every gateway started, in the order of the `gateway` settings. */
  readonly gateways: RunningProcess[];
  /** The first gateway. */
  readonly gateway: RunningProcess;
  /** The first gateway's URL. */
  readonly url: string;
  /** A management client for the first gateway. */
  readonly api: GatewayClient;
  /** An admin token from the first gateway, asked for once, on first use. */
  adminToken(): Promise<string>;
  /** Stops the gateways, then the downstream and redis-server if the pair started them; safe to call twice. */
  stop(): Promise<void>;
}

/**
 * Starts built gateway processes on free ports in front of one downstream,
 * with a throwaway redis-server as their store when asked, and waits until
 * they are ready. Whatever started is stopped again if a later step fails,
 * so a failing `beforeAll` leaves no process behind.
 */
export async function startPair<D extends DownstreamChoice = 'sample', R extends RedisChoice = false>(
  options: PairOptions<D, R> = {},
): Promise<Pair<DownstreamOf<NoInfer<D>>, HasRedis<NoInfer<R>>>> {
  const settings = await withJwksPort(gatewaySettings(options), options.downstream);
  const stops: Array<() => Promise<unknown>> = [];
  const stop = async () => {
    for (const step of stops.splice(0).reverse()) await step();
  };
  try {
    const [redisStart, downstreamStart] = await Promise.allSettled([
      options.redis ? startRedisServer(options.redis === true ? {} : options.redis) : undefined,
      startChosenDownstream(options.downstream ?? 'sample', settings[0]!),
    ]);
    // Registered in a fixed order, so `stop` always goes gateways, downstream, redis-server.
    const redis = settled(redisStart, stops, (server) => server?.stop());
    const chosen = settled(downstreamStart, stops, (started) => started.stop());
    rethrowFirst([redisStart, downstreamStart]);
    const downstream = chosen!.downstream;
    const started = await Promise.allSettled(
      settings.map((own) => startGateway({ ...own, downstreamUrl: downstream.url, redisUrl: redis?.url })),
    );
    const gateways = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
    stops.push(() => Promise.all(gateways.map((gateway) => gateway.stop())));
    rethrowFirst(started);
    if (options.ready ?? true) await Promise.all(gateways.map((gateway) => waitUntilReady(gateway.url)));

    const gateway = gateways[0]!;
    const api = new GatewayClient(gateway.url);
    let admin: Promise<string> | undefined;
    return {
      downstream: downstream as DownstreamOf<D>,
      redis: redis as Pair<DownstreamOf<D>, HasRedis<R>>['redis'],
      gateways,
      gateway,
      url: gateway.url,
      api,
      adminToken: () => (admin ??= api.adminToken()),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

function gatewaySettings(options: PairOptions<DownstreamChoice, RedisChoice>): readonly GatewaySettings[] {
  if (Array.isArray(options.gateway)) {
    if (options.instances !== undefined)
      throw new Error('startPair: give `instances` or an array of `gateway` settings, not both');
    if (options.gateway.length === 0)
      throw new Error('startPair: an empty array of `gateway` settings starts no gateway');
    return options.gateway;
  }
  return Array.from({ length: options.instances ?? 1 }, () => (options.gateway ?? {}) as GatewaySettings);
}

/**
 * A guarded sample fetches the first gateway's keys, so that gateway's
 * address must be known before either starts: it gets a free port now.
 */
async function withJwksPort(
  settings: readonly GatewaySettings[],
  choice: DownstreamChoice | undefined,
): Promise<readonly GatewaySettings[]> {
  if (typeof choice !== 'object' || !('guardedSample' in choice) || settings[0]!.env?.PORT !== undefined)
    return settings;
  const [first, ...rest] = settings;
  return [{ ...first, env: { ...first!.env, PORT: String(await freePort()) } }, ...rest];
}

/** Starts the chosen downstream, with how to stop it; a downstream the test brought is only used. */
async function startChosenDownstream(
  choice: DownstreamChoice,
  firstGateway: GatewaySettings,
): Promise<{ downstream: { readonly url: string }; stop: () => Promise<unknown> }> {
  if (choice === 'sample') {
    const sample = await startDownstream();
    return { downstream: sample, stop: () => sample.stop() };
  }
  if (typeof choice === 'object' && 'guardedSample' in choice) {
    const gatewayJwksUrl = `http://127.0.0.1:${firstGateway.env!.PORT}/.well-known/jwks.json`;
    const sample = await startDownstream({ gatewayJwksUrl, env: choice.guardedSample.env });
    return { downstream: sample, stop: () => sample.stop() };
  }
  if (choice === 'controlled') {
    const controlled = await startControlledDownstream();
    return { downstream: controlled, stop: () => controlled.kill() };
  }
  if ('recording' in choice) {
    const recording = await startRecordingDownstream(choice.recording);
    return { downstream: recording, stop: () => recording.close() };
  }
  return { downstream: choice, stop: async () => undefined };
}

/** The value of a start that succeeded, with its stop registered; undefined for one that failed (rethrown next). */
function settled<T>(
  result: PromiseSettledResult<T>,
  stops: Array<() => Promise<unknown>>,
  stop: (value: T) => Promise<unknown> | undefined,
): T | undefined {
  if (result.status === 'rejected') return undefined;
  stops.push(async () => stop(result.value));
  return result.value;
}

function rethrowFirst(results: ReadonlyArray<PromiseSettledResult<unknown>>): void {
  const failed = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (failed) throw failed.reason;
}
