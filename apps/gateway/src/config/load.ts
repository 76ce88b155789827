import { parseGatewayConfig, type ParsedConfig } from './gateway-config.js';
import { mergeSources, readConfigFile, readEnvironment } from './sources.js';

/**
 * Env wins over the optional JSON file named by `--config <path>` or the
 * `TOLLGATE_CONFIG_FILE` variable.
 */
export function loadGatewayConfig(argv: readonly string[], env: NodeJS.ProcessEnv): ParsedConfig {
  const flag = argv.indexOf('--config');
  const file = flag >= 0 ? argv[flag + 1] : env.TOLLGATE_CONFIG_FILE;
  const fromFile = file ? readConfigFile(file) : new Map();
  return parseGatewayConfig(mergeSources(fromFile, readEnvironment(env)));
}
