import {
  BudgetExhaustedError,
  CircuitOpenError,
  DownstreamError,
  ForbiddenError,
  GatewayError,
  InvalidInputError,
  StoreUnavailableError,
  UnauthorizedError,
} from '../errors.js';
import type { ToolCallTrace } from '../pipeline/tool-call.js';
import { ToolRefusedError } from '../tools/access.js';
import type { ToolCallAuditOutcome } from './record.js';

/** How a failed tools/call is named in the audit trail and in metrics. */
export function toolCallFailureOutcome(error: unknown, trace: ToolCallTrace): ToolCallAuditOutcome {
  if (error instanceof UnauthorizedError) return 'unauthorized';
  if (error instanceof ToolRefusedError) return error.reason === 'missing-scopes' ? 'forbidden' : error.reason;
  if (error instanceof ForbiddenError) return 'forbidden';
  if (error instanceof BudgetExhaustedError) return 'budget-exhausted';
  if (error instanceof CircuitOpenError) return 'circuit-open';
  if (error instanceof DownstreamError) return 'downstream-error';
  if (error instanceof StoreUnavailableError) return 'store-unavailable';
  // Bad arguments are only judged once the tool is known.
  if (error instanceof InvalidInputError) return trace.tool === undefined ? 'unknown-tool' : 'invalid-arguments';
  if (error instanceof GatewayError && error.httpStatus < 500) return 'invalid-request';
  if (error instanceof GatewayError && error.httpStatus === 503) return 'unavailable';
  return 'internal-error';
}
