// Throughput and cost of a fixed number of calls at a fixed number of
// connections, with autocannon. Every answer
// is compared with the expected body, so a fast stream of errors wrapped in
// HTTP 200 (a JSON-RPC error, an isError tool result) counts as a mismatch,
// not as throughput.
import autocannon from 'autocannon';

/**
 * Runs a short warm-up, then a measured run of `calls` calls (at most
 * `maxSec`: a target too slow for that is cut short and says so);
 * `window` is the hrtime span of the measured run (ns, for profiles).
 * `around` names hooks awaited just before and just after the measured run
 * (`after(calls)` gets the number of calls made); what each `after` returns
 * is put in the row under the hook's name. A hook's optional `reached()` is
 * called synchronously on the last answer: autocannon itself only notices it
 * is done at its next one-second tick, and that idle tail must count neither
 * in the rate nor in the CPU.
 */
export async function throughput({
  url,
  method = 'GET',
  headers = {},
  body,
  expectBody,
  uniqueIds = false,
  connections,
  calls,
  warmupSec,
  maxSec = 120,
  around = {},
}) {
  const target = { url, method, headers, body, connections, pipelining: 1, timeout: 10, idReplacement: uniqueIds };
  if (warmupSec > 0) await run({ ...target, duration: warmupSec });
  for (const hook of Object.values(around)) await hook.before();
  const start = process.hrtime.bigint();
  const problems = new Map();
  const check = uniqueIds
    ? { verifyBody: (text) => withoutUniqueId(text) === withoutStreamIds(expectBody) }
    : { expectBody };
  let end;
  const lastAnswer = () => {
    end = process.hrtime.bigint();
    for (const hook of Object.values(around)) hook.reached?.();
  };
  const result = await run({ ...target, amount: calls, ...check }, problems, maxSec, { at: calls, then: lastAnswer });
  // Cut short or ended by errors: the run's own end is the end.
  end ??= process.hrtime.bigint();
  const measured = {};
  for (const [name, hook] of Object.entries(around)) measured[name] = await hook.after(result.requests.total);
  const seconds = Number(end - start) / 1e9;
  return {
    connections,
    calls: result.requests.total,
    cutShort: result.requests.total < calls,
    durationSec: Math.round(seconds * 100) / 100,
    requests: result.requests.total,
    // Only answers equal to the expected body count (a non-2xx answer is a mismatch too).
    requestsPerSec: Math.round((result.requests.total - result.mismatches) / seconds),
    latencyMs: { p50: result.latency.p50, p90: result.latency.p90, p99: result.latency.p99, mean: result.latency.mean },
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    mismatches: result.mismatches,
    /** The first few distinct errors and wrong bodies, with their counts, so a failed row explains itself. */
    problemSamples: Object.fromEntries([...problems].slice(0, 5)),
    window: { startNs: String(start), endNs: String(end) },
    ...measured,
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

function run(options, problems = new Map(), maxSec = Infinity, answers = { at: Infinity, then: () => undefined }) {
  const note = (what) => problems.set(what, (problems.get(what) ?? 0) + 1);
  return new Promise((resolve, reject) => {
    let limit;
    let answered = 0;
    const instance = autocannon(options, (error, result) => {
      clearTimeout(limit);
      if (error) reject(error);
      else resolve(result);
    });
    instance.on('reqError', (error) => note(`error: ${error?.message ?? error}`));
    instance.on('reqMismatch', (body) => note(`wrong body: ${String(body).slice(0, 200)}`));
    instance.on('response', () => {
      if (++answered === answers.at) answers.then();
    });
    if (Number.isFinite(maxSec)) limit = setTimeout(() => instance.stop(), maxSec * 1000);
  });
}
