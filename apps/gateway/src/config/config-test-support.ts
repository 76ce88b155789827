import { ConfigError } from '@tollgate/gateway-core/errors';

/** For tests: the lines of the ConfigError that `parse` throws; fails when it throws nothing or something else. */
export function configProblems(parse: () => unknown): string[] {
  try {
    parse();
  } catch (error) {
    if (error instanceof ConfigError) return error.message.split('\n');
    throw error;
  }
  throw new Error('expected a ConfigError');
}
