// Throughput at a fixed number of connections, with autocannon. Every answer
// is compared with the expected body, so a fast stream of errors wrapped in
// HTTP 200 (a JSON-RPC error, an isError tool result) counts as a mismatch,
// not as throughput.
import autocannon from 'autocannon';

/**
 * Runs a short warm-up, then the measured run; `window` is the hrtime span of
 * the measured run (ns, for profiles). `around`, when given, is awaited just
 * before and just after the measured run (e.g. to read counters).
 */
export async function throughput({ url, method = 'GET', headers = {}, body, expectBody, uniqueIds = false, connections, durationSec, warmupSec, around }) {
  const target = { url, method, headers, body, connections, pipelining: 1, timeout: 10, idReplacement: uniqueIds };
  if (warmupSec > 0) await run({ ...target, duration: warmupSec });
  await around?.before();
  const start = process.hrtime.bigint();
  const problems = new Map();
  const check = uniqueIds ? { verifyBody: (text) => withoutUniqueId(text) === withoutStreamIds(expectBody) } : { expectBody };
  const result = await run({ ...target, duration: durationSec, ...check }, problems);
  const end = process.hrtime.bigint();
  await around?.after(result.requests.total);
  return {
    connections,
    durationSec: result.duration,
    requests: result.requests.total,
    // Only answers equal to the expected body count (a non-2xx answer is a mismatch too).
    requestsPerSec: Math.round((result.requests.total - result.mismatches) / result.duration),
    latencyMs: { p50: result.latency.p50, p90: result.latency.p90, p99: result.latency.p99, mean: result.latency.mean },
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    mismatches: result.mismatches,
    /** The first few distinct errors and wrong bodies, with their counts, so a failed row explains itself. */
    problemSamples: Object.fromEntries([...problems].slice(0, 5)),
    window: { startNs: String(start), endNs: String(end) },
  };
}

/**
 * With `uniqueIds`, autocannon puts a fresh id where the body says `[<id>]`:
 * JSON-RPC ids must be unique among a session's requests in flight (the SDK
 * routes each reply by its id). Answers are compared with that id put back.
 */
export const UNIQUE_ID = '[<id>]';
/** Resumable streams carry SSE event ids made for each stream (and holding the request's id): compared without them. */
const withoutStreamIds = (text) => text.replace(/^id: \S+$/gm, 'id: [<stream>]');
const withoutUniqueId = (text) => withoutStreamIds(text).replace(/"id":"[A-Za-z0-9_-]{16,}"/, `"id":"${UNIQUE_ID}"`);

function run(options, problems = new Map()) {
  const note = (what) => problems.set(what, (problems.get(what) ?? 0) + 1);
  return new Promise((resolve, reject) => {
    const instance = autocannon(options, (error, result) => (error ? reject(error) : resolve(result)));
    instance.on('reqError', (error) => note(`error: ${error?.message ?? error}`));
    instance.on('reqMismatch', (body) => note(`wrong body: ${String(body).slice(0, 200)}`));
  });
}
