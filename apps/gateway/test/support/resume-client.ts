import { connect } from 'node:net';
import type { TestAgent } from './mcp.js';

/** A 2025-11-25 client of resumable tools/call streams, for the process tests of issue 25 (findings 1 and 2). */

const PRIMING = /id: (\S+:0)\nretry: \d+\ndata: \n\n/;

/** What a client got of a stream it dropped right after the priming event. */
export interface Dropped {
  lastEventId: string;
  /** Everything received before the drop (the answer too, if it came in the same read). */
  received: string;
}

/**
 * Posts a tools/call on its own connection, reads up to the priming event,
 * and drops the connection at once: a 2025-11-25 client whose network went away.
 */
export function callAndDropAfterPriming(
  url: string,
  agent: TestAgent,
  sessionId: string,
  id: number,
): Promise<Dropped> {
  const { hostname, port } = new URL(url);
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'get_item', arguments: { id: 5 } },
  });
  const head = [
    'POST /mcp HTTP/1.1',
    `Host: ${hostname}:${port}`,
    `Authorization: Bearer ${agent.token}`,
    `Mcp-Session-Id: ${sessionId}`,
    'MCP-Protocol-Version: 2025-11-25',
    'Content-Type: application/json',
    'Accept: application/json, text/event-stream',
    `Content-Length: ${Buffer.byteLength(body)}`,
  ];
  return new Promise((resolve, reject) => {
    const socket = connect({ port: Number(port), host: hostname });
    let received = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      received += chunk;
      const priming = PRIMING.exec(received);
      if (!priming) return;
      socket.destroy();
      resolve({ lastEventId: priming[1]!, received });
    });
    socket.on('error', reject);
    socket.on('close', () => reject(new Error(`closed before the priming event: ${JSON.stringify(received)}`)));
    socket.write(`${head.join('\r\n')}\r\n\r\n${body}`);
  });
}

/** A resume (GET /mcp with Last-Event-ID) once its status line is in: held open until `close`. */
export async function openResume(url: string, agent: TestAgent, sessionId: string, lastEventId: string) {
  const abort = new AbortController();
  const response = await fetch(`${url}/mcp`, {
    headers: {
      Accept: 'text/event-stream',
      Authorization: `Bearer ${agent.token}`,
      'Mcp-Session-Id': sessionId,
      'MCP-Protocol-Version': '2025-11-25',
      'Last-Event-ID': lastEventId,
    },
    signal: abort.signal,
  });
  return { status: response.status, text: () => response.text(), close: () => abort.abort() };
}

/** A well-formed event id naming no stream this gateway opened: a genuine one with one character of its stream part changed. */
export function madeUp(lastEventId: string): string {
  const swapped = lastEventId[3] === 'A' ? 'B' : 'A';
  return `${lastEventId.slice(0, 3)}${swapped}${lastEventId.slice(4)}`;
}
