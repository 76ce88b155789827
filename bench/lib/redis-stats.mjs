// Counts the commands Redis executed, from `INFO commandstats` over a raw RESP
// socket (no client library needed), so the benchmark can say how many store
// commands one tools/call costs.
import { connect } from 'node:net';

function info(port) {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    let data = '';
    socket.setTimeout(5_000, () => socket.destroy(new Error('redis INFO timed out')));
    socket.on('error', reject);
    socket.on('connect', () => socket.write('*2\r\n$4\r\nINFO\r\n$12\r\ncommandstats\r\n'));
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

/** Calls per command name, e.g. { get: 10, evalsha: 4 }. */
export async function commandCounts(port) {
  const counts = {};
  for (const match of (await info(port)).matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) counts[match[1]] = Number(match[2]);
  return counts;
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
