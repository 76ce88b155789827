import { declareKeys } from './declare.js';
import { commaList, positiveInt } from './fields.js';
import { workersField } from './workers.js';

/** `Gw:Http:*`: who may call, and the limits of the HTTP server itself. */
export const HTTP_KEYS = declareKeys({
  allowedOrigins: {
    name: 'Gw:Http:AllowedOrigins',
    field: commaList,
    description:
      'Origins (comma-separated or a JSON array; exact scheme, host and port) browser pages may call the gateway ' +
      'from, besides loopback origins; any other `Origin` gets 403. On `/mcp` these origins get CORS: preflights ' +
      'answered 204, `Mcp-Session-Id` and `WWW-Authenticate` exposed (see [Browser ' +
      'clients](../guide/clients.md)).',
  },
  allowedHosts: {
    name: 'Gw:Http:AllowedHosts',
    field: commaList,
    defaultIs: 'none (any; loopback names only when listening on loopback)',
    description: '`Host` values accepted: a DNS-rebinding guard.',
  },
  shutdownDeadlineSeconds: {
    name: 'Gw:Http:ShutdownDeadlineSeconds',
    field: positiveInt(15),
    description: 'On SIGTERM, calls in flight get this long to finish.',
  },
  headersTimeoutSeconds: {
    name: 'Gw:Http:HeadersTimeoutSeconds',
    field: positiveInt(10),
    description: "A client must send a request's headers within this long, or gets 408 and the connection closes.",
  },
  requestTimeoutSeconds: {
    name: 'Gw:Http:RequestTimeoutSeconds',
    field: positiveInt(30),
    description:
      'A client must send the whole request, body included, within this long, or gets 408 and the connection ' +
      'closes. The answer is not limited by it: a tool call or a resumed stream may take longer.',
  },
  keepAliveTimeoutSeconds: {
    name: 'Gw:Http:KeepAliveTimeoutSeconds',
    field: positiveInt(5),
    description: 'An idle keep-alive connection is closed after this long.',
  },
  maxConnections: {
    name: 'Gw:Http:MaxConnections',
    field: positiveInt(1024),
    description: 'Open connections per instance; more are refused when accepted.',
  },
  maxPendingBodyBytes: {
    name: 'Gw:Http:MaxPendingBodyBytes',
    field: positiveInt(64 * 1024 * 1024),
    description:
      'Request body bytes an instance holds at once while `/mcp` bodies arrive, counted at their declared length ' +
      'from before the first byte is read; one agent may hold an eighth of it. A body past either bound is ' +
      'refused unread: 429 `too-many-uploads`, `Retry-After: 1`, `Connection: close`.',
  },
  workers: {
    name: 'Gw:Http:Workers',
    field: { schema: workersField(), type: 'whole number ≥ 1, or `auto`' },
    description:
      "Gateway processes sharing the port on this host (Node's cluster module): a whole number, or `auto` for " +
      'the CPUs this process may use (`os.availableParallelism()`: its CPU affinity and, in a container, its CPU ' +
      'limit rounded down). More than one needs `ConnectionStrings:Store`: on the in-memory store the gateway ' +
      'refuses to start. Per-instance limits (`MaxConnections`, `MaxPendingBodyBytes`, ' +
      '`Gw:Mcp:MaxConcurrentCallsPerAgent`, the downstream pool) apply per worker. See [workers and ' +
      'scaling](../operations/workers-and-scaling.md).',
  },
});
