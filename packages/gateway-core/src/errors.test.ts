import { describe, expect, it } from 'vitest';
import {
  BudgetExhaustedError,
  CircuitOpenError,
  describeError,
  DownstreamError,
  ForbiddenError,
  InvalidInputError,
  NotFoundError,
  StoreUnavailableError,
  UnauthorizedError,
} from './errors.js';

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
    expect(describeError(error)).toEqual({ httpStatus, jsonRpcCode, title: error.title, detail: error.message, expected: true });
    expect(error.name).toBe(error.constructor.name);
  });

  it('hides the message of anything unexpected', () => {
    const described = describeError(new Error('connection string redis://:pw@host'));
    expect(described).toMatchObject({ httpStatus: 500, jsonRpcCode: -32603, expected: false });
    expect(described.detail).not.toMatch(/pw/);
    expect(describeError('a thrown string').httpStatus).toBe(500);
  });
});
