import type { ConfigProblem } from '@tollgate/gateway-core/errors';
import { z } from 'zod';
import { declareKeys, type Field } from './declare.js';
import { booleanFlag, positiveInt } from './fields.js';

/** `Gw:Cache:*`: the response cache and its semantic tier, for every tool. */
export const CACHE_KEYS = declareKeys({
  enabled: {
    name: 'Gw:Cache:Enabled',
    field: booleanFlag(true),
    description: 'The response cache (see [What is cached](../guide/response-cache.md#what-is-cached)).',
  },
  semantic: {
    name: 'Gw:Cache:Semantic',
    field: booleanFlag(true),
    description: "The cache's semantic tier for the tools that opt in; `false` turns the tier off for every tool.",
  },
  similarityThreshold: {
    name: 'Gw:Cache:SimilarityThreshold',
    field: {
      schema: z.coerce.number().gt(0, 'must be above 0').max(1, 'must be at most 1').default(0.88),
      type: 'number > 0, ≤ 1',
    },
    description:
      'Lowest cosine similarity of every free-text argument for a semantic hit (the guard must agree too). ' +
      'Measured on the evaluation sets: no wrong answer at 0.86 or above, the first at 0.84; 0.88 keeps a 0.02 ' +
      'margin (see [the response cache](../guide/response-cache.md#measured-precision-and-recall)).',
  },
  ttlSeconds: {
    name: 'Gw:Cache:TtlSeconds',
    field: positiveInt(300),
    description: 'Default lifetime of a cached answer.',
  },
});

/** The section of per-tool settings, `Gw:Cache:Tools:<tool>:<Setting>`. */
export const CACHE_TOOLS_SECTION = 'Gw:Cache:Tools';
const TOOLS = CACHE_TOOLS_SECTION;

/** One tool's own cache settings; unset ones follow the gateway-wide keys. */
export interface ToolCacheOptions {
  enabled?: boolean;
  semantic?: boolean;
  ttlMs?: number;
}

const toolFlag = {
  schema: z
    .string()
    .regex(/^(true|false|1|0)$/i, { error: 'must be true or false' })
    .transform((value) => /^(true|1)$/i.test(value)),
  type: 'boolean',
} satisfies Field;

const toolSeconds = {
  schema: z
    .string()
    .refine((value) => Number.isInteger(Number(value)) && Number(value) > 0, {
      error: 'must be a positive whole number',
    })
    .transform(Number),
  type: 'whole number ≥ 1',
} satisfies Field;

/** `Gw:Cache:Tools:<tool>:<Setting>`: one tool's opt-out and TTL, read together by `perToolCache`. */
export const CACHE_TOOL_KEYS = declareKeys({
  enabled: {
    name: `${TOOLS}:<tool>:Enabled`,
    field: toolFlag,
    defaultIs: '—',
    description: "Per-tool opt-out: `false` caches none of this tool's answers.",
  },
  semantic: {
    name: `${TOOLS}:<tool>:Semantic`,
    field: toolFlag,
    defaultIs: '—',
    description:
      '`false` turns the semantic tier off for this tool. It can only turn the tier off (off wins); it never ' +
      'opts in a tool whose definition does not.',
  },
  ttlSeconds: {
    name: `${TOOLS}:<tool>:TtlSeconds`,
    field: toolSeconds,
    defaultIs: '—',
    description: "Per-tool TTL: the lifetime of this tool's cached answers.",
  },
});

type ToolSetting = keyof typeof CACHE_TOOL_KEYS;
const TOOL_SETTINGS = Object.keys(CACHE_TOOL_KEYS) as ToolSetting[];
/** The last part of a per-tool key's name (`TtlSeconds`). */
const settingName = (setting: ToolSetting) => CACHE_TOOL_KEYS[setting].name.split(':').at(-1) as string;
const TOOL_SETTING_BY_NAME = new Map(TOOL_SETTINGS.map((setting) => [settingName(setting).toLowerCase(), setting]));
const NAMES = TOOL_SETTINGS.map(settingName);

/**
 * `Gw:Cache:Tools:<tool>:Enabled|Semantic|TtlSeconds` (`entries` as `section()` gives them): per-tool opt-out and TTL.
 */
export function perToolCache(
  entries: Record<string, string>,
  problems: ConfigProblem[],
): Record<string, ToolCacheOptions> {
  const tools: Record<string, ToolCacheOptions> = {};
  for (const [path, value] of Object.entries(entries)) {
    const [tool, written, ...rest] = path.split(':');
    const key = `${TOOLS}:${path}`;
    if (!tool || !written || rest.length > 0) {
      problems.push({ path: key, message: `expected ${TOOLS}:<tool>:${NAMES.join('|')}` });
      continue;
    }
    const setting = TOOL_SETTING_BY_NAME.get(written.toLowerCase());
    if (setting === undefined) {
      problems.push({ path: key, message: `unknown setting (${NAMES.slice(0, -1).join(', ')} or ${NAMES.at(-1)})` });
      continue;
    }
    const options = (tools[tool] ??= {});
    const parsed = CACHE_TOOL_KEYS[setting].field.schema.safeParse(value);
    if (!parsed.success) for (const issue of parsed.error.issues) problems.push({ path: key, message: issue.message });
    else if (setting === 'ttlSeconds') options.ttlMs = (parsed.data as number) * 1000;
    else options[setting] = parsed.data as boolean;
  }
  return tools;
}
