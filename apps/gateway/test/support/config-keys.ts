import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONFIG_KEYS, OPEN_SECTIONS } from '../../src/config/keys.js';
import { LOG_KEYS, MODE_KEYS } from '../../src/config/server-section.js';

/**
 * The configuration names the gateway really reads, taken from its source so
 * a deployment file can never name a key that does not exist: the declared
 * keys (config/keys.ts), the open-ended sections (`Gw:Downstream:Headers:*`),
 * and the process variables read outside the declarations.
 */
const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

export interface ConfigKeys {
  keys: Set<string>;
  sections: string[];
}

export function readConfigKeys(): ConfigKeys {
  const keys = new Set<string>(
    [MODE_KEYS, LOG_KEYS, ...Object.values(CONFIG_KEYS)].flatMap((group) =>
      Object.values(group).map((key) => key.name),
    ),
  );
  const sections: string[] = Object.values(OPEN_SECTIONS);
  for (const file of sourceFiles(SRC)) {
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(
      /lookup\(flat, '([^']+)'\)|process\.env\.([A-Z][A-Z0-9_]*)|\benv\.([A-Z][A-Z0-9_]*)/g,
    )) {
      keys.add(match[1] ?? match[2] ?? match[3]!);
    }
  }
  return { keys, sections };
}

/** `Gw__Jwt__SigningKey` → `Gw:Jwt:SigningKey` when that is a key the gateway reads (case-insensitive, as the gateway matches). */
export function configKeyOf(envName: string, known: ConfigKeys): string | undefined {
  const key = envName.replaceAll('__', ':');
  const lowered = key.toLowerCase();
  for (const candidate of known.keys) if (candidate.toLowerCase() === lowered) return candidate;
  const section = known.sections.find(
    (prefix) => lowered.startsWith(`${prefix.toLowerCase()}:`) && lowered.length > prefix.length + 1,
  );
  return section === undefined ? undefined : key;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}
