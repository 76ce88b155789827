/**
 * MCP 2026-07-28's InputRequiredResult (multi round-trip requests): the
 * answer to a request that needs more from the client first. The client
 * fulfils `inputRequests` and retries the request with `inputResponses`
 * and `requestState` echoed byte for byte.
 */
export interface InputRequiredResult {
  resultType: 'input_required';
  inputRequests: Record<string, { method: 'elicitation/create'; params: Record<string, unknown> }>;
  requestState: string;
}
