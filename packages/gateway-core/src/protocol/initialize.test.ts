import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../errors.js';
import { buildInitializeResult, parseInitializeParams } from './initialize.js';

const params = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1.0.0' } };

describe('initialize', () => {
  it('answers with the negotiated version, tools capability and server info', () => {
    expect(
      buildInitializeResult({ requestedVersion: '2025-06-18', serverInfo: { name: 'tollgate', version: '0.1.0' } }),
    ).toEqual({
      protocolVersion: '2025-06-18',
      capabilities: { tools: { listChanged: false } },
      serverInfo: { name: 'tollgate', version: '0.1.0' },
    });
    const result = buildInitializeResult({
      requestedVersion: '2030-01-01',
      serverInfo: { name: 't', version: '1' },
      instructions: 'Use the tools.',
    });
    expect(result.protocolVersion).toBe('2025-11-25');
    expect(result.instructions).toBe('Use the tools.');
  });

  it('accepts the params of contract 4.3', () => {
    expect(parseInitializeParams(params)).toEqual(params);
  });

  it('refuses params without clientInfo with -32602, naming the fields', () => {
    try {
      parseInitializeParams({ protocolVersion: '2024-11-05', capabilities: {} });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(InvalidInputError);
      expect((error as InvalidInputError).jsonRpcCode).toBe(-32602);
      expect((error as InvalidInputError).fields.map((field) => field.path)).toEqual(['clientInfo']);
    }
  });
});
