import { describe, expect, it } from 'vitest';
import {
  BudgetExhaustedError,
  CircuitOpenError,
  describeError,
  DownstreamError,
  ForbiddenError,
  InvalidArgumentsError,
  InvalidInputError,
  NotFoundError,
  NotReadyError,
  RateLimitedError,
  SessionNotFoundError,
  StoreUnavailableError,
  ToolRefusedError,
  TransportError,
  UnauthorizedError,
  UnknownToolError,
} from './errors.js';
import { ERROR_CATALOGUE, FAILURE_OUTCOMES } from './error-catalogue.js';

describe('describeError', () => {
  it.each([
    [new UnauthorizedError('no token', 'missing'), 401, -32001],
    [new ForbiddenError('scope orders:write required'), 403, -32003],
    [new BudgetExhaustedError('budget exhausted', '2030-01-02T00:00:00.000Z'), 429, -32029],
    [new DownstreamError('downstream answered 500'), 502, -32002],
    [new CircuitOpenError('downstream isolated'), 503, -32003],
    [new NotFoundError('no such agent'), 404, -32602],
    [new InvalidInputError('bad body'), 400, -32602],
    [new StoreUnavailableError('redis down'), 503, -32003],
  ])('maps %s to the spec status and code', (error, httpStatus, jsonRpcCode) => {
    expect(describeError(error)).toEqual({
      code: error.code,
      httpStatus,
      jsonRpcCode,
      title: error.title,
      outcome: error.kind.outcome,
      delivery: error.kind.delivery,
      detail: error.message,
      expected: true,
    });
    expect(error.name).toBe(error.constructor.name);
  });

  it('hides the message of anything unexpected', () => {
    const described = describeError(new Error('connection string redis://:pw@host'));
    expect(described).toMatchObject({ httpStatus: 500, jsonRpcCode: -32603, expected: false });
    expect(described.detail).not.toMatch(/pw/);
    expect(describeError('a thrown string').httpStatus).toBe(500);
    expect(described).toMatchObject({ code: 'internal', outcome: 'internal-error' });
  });
});

describe('the error catalogue', () => {
  it('names how each kind of failed tools/call is audited', () => {
    const outcome = (error: unknown) => describeError(error).outcome;
    expect(outcome(new UnauthorizedError('x', 'expired'))).toBe('unauthorized');
    expect(outcome(new ToolRefusedError('missing-scopes', 'x'))).toBe('forbidden');
    expect(outcome(new ToolRefusedError('not-allowlisted', 'x'))).toBe('not-allowlisted');
    expect(outcome(new ToolRefusedError('write-blocked', 'x'))).toBe('write-blocked');
    expect(outcome(new UnknownToolError('x', []))).toBe('unknown-tool');
    expect(outcome(new InvalidArgumentsError('x', []))).toBe('invalid-arguments');
    expect(outcome(new InvalidInputError('x'))).toBe('invalid-request');
    expect(outcome(new BudgetExhaustedError('x', '2030-01-02T00:00:00.000Z'))).toBe('budget-exhausted');
    expect(outcome(new RateLimitedError('x', { callsPerMinute: 6, burst: 3 }, 1))).toBe('rate-limited');
    expect(outcome(new CircuitOpenError('x'))).toBe('circuit-open');
    expect(outcome(new DownstreamError('x'))).toBe('downstream-error');
    expect(outcome(new StoreUnavailableError('x'))).toBe('store-unavailable');
    expect(outcome(new NotReadyError('x'))).toBe('unavailable');
    expect(outcome(new SessionNotFoundError())).toBe('invalid-request');
    expect(outcome(new TransportError('body-too-large', 'x'))).toMatch('invalid-request');
  });

  it("refuses a rate-limited call like a spent budget: 429 / -32029, the budget's data shape, whole seconds to wait", () => {
    const now = new Date('2030-01-01T12:00:00.000Z');
    const error = new RateLimitedError('slow down', { callsPerMinute: 6, burst: 3 }, 9_001, { now });
    expect(describeError(error)).toMatchObject({
      code: 'rate-limited',
      httpStatus: 429,
      jsonRpcCode: -32029,
      outcome: 'rate-limited',
      delivery: 'in-band',
    });
    expect(error.data).toEqual({
      reason: 'rate-limited',
      resetsAt: '2030-01-01T12:00:09.001Z',
      retryAfterSeconds: 10,
      callsPerMinute: 6,
      burst: 3,
      remaining: 0,
    });
    expect(
      Object.keys(new BudgetExhaustedError('x', '2030-01-02T00:00:00.000Z', { dailyTokenBudget: 100 }).data).filter(
        (key) => !(key in error.data),
      ),
    ).toEqual(['dailyTokenBudget']);
    expect(new RateLimitedError('x', { callsPerMinute: 6, burst: 3 }, 1).data.retryAfterSeconds).toBe(1);
  });

  it('keeps the JSON-RPC codes of contract 7 and the outcomes the audit trail knows', () => {
    for (const [code, kind] of Object.entries(ERROR_CATALOGUE)) {
      expect(FAILURE_OUTCOMES, code).toContain(kind.outcome);
      expect(kind.httpStatus, code).toBeGreaterThanOrEqual(200);
    }
    expect(ERROR_CATALOGUE['budget-exhausted']).toMatchObject({ httpStatus: 429, jsonRpcCode: -32029 });
    expect(ERROR_CATALOGUE['downstream-error']).toMatchObject({ httpStatus: 502, jsonRpcCode: -32002 });
    expect(ERROR_CATALOGUE['circuit-open']).toMatchObject({ httpStatus: 503, jsonRpcCode: -32003 });
    expect(ERROR_CATALOGUE.forbidden).toMatchObject({ httpStatus: 403, jsonRpcCode: -32003 });
    expect(ERROR_CATALOGUE.unauthorized).toMatchObject({ httpStatus: 401, jsonRpcCode: -32001 });
  });
});
