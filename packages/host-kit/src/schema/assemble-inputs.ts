import type { InputProperty, InputSchema, ParameterSource } from '../tool-definition.js';

/** One input as a marking form sees it, before precedence is applied. */
export interface InputCandidate {
  name: string;
  source: ParameterSource;
  property: InputProperty;
  required: boolean;
}

export interface AssembledInputs {
  parameterSources: Record<string, ParameterSource>;
  inputSchema: InputSchema;
}

const PRECEDENCE: Record<ParameterSource, number> = { route: 0, query: 1, body: 2 };

/**
 * Merges the inputs of both marking forms into the contract 2.5 fields. On a
 * shared name route beats query beats body (contract 4.6 rule 2); route inputs
 * are always required (rule 5). Shared by the endpoint form and the analyzer
 * so the two forms cannot drift apart.
 */
export function assembleInputs(candidates: readonly InputCandidate[]): AssembledInputs {
  const winners = new Map<string, InputCandidate>();
  for (const candidate of candidates) {
    const current = winners.get(candidate.name);
    if (!current || PRECEDENCE[candidate.source] < PRECEDENCE[current.source]) {
      winners.set(candidate.name, candidate);
    }
  }
  const parameterSources: Record<string, ParameterSource> = {};
  const properties: Record<string, InputProperty> = {};
  const required: string[] = [];
  for (const { name, source, property, required: isRequired } of winners.values()) {
    parameterSources[name] = source;
    properties[name] = property;
    if (source === 'route' || isRequired) required.push(name);
  }
  return { parameterSources, inputSchema: { type: 'object', properties, required } };
}
