import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

/** docker-compose.yml, parsed, plus the variable interpolation Compose applies to it. */
export interface ComposeService {
  image?: string;
  build?: { context: string; target?: string };
  command?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  healthcheck?: { test: string[]; interval?: string; timeout?: string; retries?: number; start_period?: string };
  depends_on?: Record<string, { condition: string }>;
}

export function readCompose(path: string): { services: Record<string, ComposeService> } {
  return parse(readFileSync(path, 'utf8'));
}

export class MissingVariableError extends Error {}

/**
 * `${NAME}`, `${NAME:-default}` and `${NAME:?message}` as Compose resolves them:
 * `:-` and `:?` treat an empty value like an unset one.
 */
export function interpolate(value: string, env: Record<string, string | undefined>): string {
  return value.replace(/\$\{(\w+)(?::([-?])([^}]*))?\}/g, (_, name: string, operator?: string, operand = '') => {
    const current = env[name];
    if (current !== undefined && current !== '') return current;
    if (operator === '?') throw new MissingVariableError(`${name}: ${operand}`);
    return operator === '-' ? operand : (current ?? '');
  });
}

/** The names of the variables a value reads with `${NAME:?…}`, i.e. must be set. */
export function requiredVariables(value: string): string[] {
  return [...value.matchAll(/\$\{(\w+):\?[^}]+\}/g)].map((match) => match[1]!);
}
