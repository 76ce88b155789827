// What one tools/call costs Redis, from the server's own counters read over a
// raw RESP socket (no client library needed):
// - commands: `INFO commandstats` (commands run inside Lua scripts included);
// - round trips: `INFO stats` total_reads_processed, the read events the
//   server handled. A client's batch of commands written at once (a pipeline,
//   a MULTI, one script) arrives as one read and is answered by one write; a
//   command sent after the previous answer came back is another read. So the
//   reads are the request batches as the server saw them, whatever the client
//   library or the scripts do. Checked by hand on Redis 7.0: three commands in
//   one write, 1 read and 1 write; the same three one after another, 3 and 3.
//   Checked against a TCP proxy between a gateway and its Redis counting the
//   gateway's writes, over 200 sequential calls: 1.2 per call both ways with
//   the cache off, 3.23 both ways on cache hits.
//   Each gateway in the bench has a redis-server of its own, so nothing else
//   is counted; the probe's own connection (its INFO, its close) is measured
//   once and subtracted.
import { connect } from 'node:net';

function info(port, sections) {
  const args = ['INFO', ...sections];
  const command = `*${args.length}\r\n${args.map((arg) => `$${Buffer.byteLength(arg)}\r\n${arg}\r\n`).join('')}`;
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    let data = '';
    socket.setTimeout(5_000, () => socket.destroy(new Error('redis INFO timed out')));
    socket.on('error', reject);
    socket.on('connect', () => socket.write(command));
    socket.on('data', (chunk) => {
      data += chunk;
      const header = /^\$(\d+)\r\n/.exec(data);
      if (header && Buffer.byteLength(data) >= header[0].length + Number(header[1])) {
        socket.end();
        resolve(data.slice(header[0].length));
      }
    });
  });
}

const stat = (text, name) => Number(new RegExp(`^${name}:(\\d+)`, 'm').exec(text)?.[1] ?? NaN);

/** Calls per command name, e.g. { get: 10, evalsha: 4 }. */
export async function commandCounts(port) {
  return parseCommands(await info(port, ['commandstats']));
}

function parseCommands(text) {
  const counts = {};
  for (const match of text.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) counts[match[1]] = Number(match[2]);
  return counts;
}

/** One snapshot of every counter the bench reads. */
export async function redisCounters(port) {
  const text = await info(port, ['stats', 'commandstats', 'server']);
  return {
    commands: parseCommands(text),
    reads: stat(text, 'total_reads_processed'),
    writes: stat(text, 'total_writes_processed'),
    pid: stat(text, 'process_id'),
  };
}

/** Reads and writes one snapshot itself costs the server (its connection, its INFO, its close): measured, not assumed. */
export async function probeCost(port) {
  const first = await redisCounters(port);
  const second = await redisCounters(port);
  return { reads: second.reads - first.reads, writes: second.writes - first.writes };
}

/** Commands per call between two snapshots, by command, plus the total. */
export function perCall(before, after, calls) {
  const perCommand = {};
  let total = 0;
  for (const [name, count] of Object.entries(after)) {
    const delta = count - (before[name] ?? 0);
    if (name === 'info' || delta <= 0) continue;
    perCommand[name] = Math.round((delta / calls) * 100) / 100;
    total += delta;
  }
  return { total: Math.round((total / calls) * 100) / 100, perCommand };
}

/** Round trips and commands per call between two `redisCounters` snapshots, the probe's own cost taken out. */
export function storeCostPerCall(before, after, calls, probe) {
  const perCallOf = (delta) => Math.round((delta / calls) * 100) / 100;
  return {
    calls,
    roundTrips: perCallOf(after.reads - before.reads - probe.reads),
    replyWrites: perCallOf(after.writes - before.writes - probe.writes),
    commands: perCall(before.commands, after.commands, calls),
  };
}

/** A load-run hook (see load.mjs): the store cost per call over the measured calls. */
export function storeCostHook(port, probe) {
  let before;
  return {
    before: async () => {
      before = await redisCounters(port);
    },
    after: async (calls) => storeCostPerCall(before, await redisCounters(port), calls, probe),
  };
}
