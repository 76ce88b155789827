// The floor of an MCP hop in Node: node:http in front, a keep-alive
// http.Agent to the echo downstream behind, the tools/call answered as one
// SSE `message` event. It does the least a proxy must (read and parse the
// JSON-RPC body, make the downstream request, frame the answer) and no check
// at all: no auth, session, budget, schema, privacy, cap or audit. The
// gateway's CPU per call is judged against this one's (issue 19).
import { downstreamClient, serveMcp } from './lib/hop.mjs';

const { fetchText } = downstreamClient(process.env.DOWNSTREAM_URL);

serveMcp('bare-proxy', async (message) => {
  const answer = await fetchText(`/items/${encodeURIComponent(message.params.arguments.id)}`);
  const result =
    answer.status === 200
      ? { content: [{ type: 'text', text: answer.text }] }
      : { isError: true, content: [{ type: 'text', text: `downstream answered ${answer.status}` }] };
  return { result };
});
