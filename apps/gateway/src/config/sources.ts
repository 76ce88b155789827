import { readFileSync } from 'node:fs';

/**
 * Configuration arrives as flat `Section:Sub:Key` names from a JSON file
 * (nested objects) and from environment variables (`__` for each `:`).
 * Names match case-insensitively, as in the .NET-style configuration the
 * spec's keys come from, so `GW__LICENSEKEY` and `Gw__LicenseKey` are one key.
 */
export interface ConfigEntry {
  /** The name as written by the user, `:`-separated. */
  key: string;
  value: string;
}

export type FlatConfig = Map<string, ConfigEntry>;

export class ConfigFileError extends Error {
  override readonly name = 'ConfigFileError';
}

export function flattenObject(value: unknown, prefix = '', into: FlatConfig = new Map()): FlatConfig {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    for (const [name, child] of Object.entries(value)) {
      flattenObject(child, prefix ? `${prefix}:${name}` : name, into);
    }
  } else if (Array.isArray(value)) {
    value.forEach((child, index) => flattenObject(child, `${prefix}:${index}`, into));
  } else if (value !== null && value !== undefined) {
    into.set(prefix.toLowerCase(), { key: prefix, value: String(value) });
  }
  return into;
}

export function readConfigFile(path: string): FlatConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigFileError(
      `config file ${path} cannot be read: ${(error as NodeJS.ErrnoException).code ?? 'error'}`,
    );
  }
  try {
    return flattenObject(JSON.parse(text));
  } catch {
    throw new ConfigFileError(`config file ${path} is not valid JSON`);
  }
}

export function readEnvironment(env: NodeJS.ProcessEnv): FlatConfig {
  const flat: FlatConfig = new Map();
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    const key = name.replaceAll('__', ':');
    flat.set(key.toLowerCase(), { key, value });
  }
  return flat;
}

/** Later sources win. */
export function mergeSources(...sources: FlatConfig[]): FlatConfig {
  const merged: FlatConfig = new Map();
  for (const source of sources) for (const [name, entry] of source) merged.set(name, entry);
  return merged;
}

export function lookup(flat: FlatConfig, key: string): string | undefined {
  return flat.get(key.toLowerCase())?.value;
}

/** Every entry below `prefix:`, keyed by the rest of its name as written. */
export function section(flat: FlatConfig, prefix: string): Record<string, string> {
  const lowered = `${prefix.toLowerCase()}:`;
  const found: Record<string, string> = {};
  for (const [name, entry] of flat) {
    if (name.startsWith(lowered)) found[entry.key.slice(lowered.length)] = entry.value;
  }
  return found;
}
