import { MAX_BURST, MAX_CALLS_PER_MINUTE } from '@tollgate/gateway-core/store';
import { MAX_TOKEN_LIFETIME_DAYS } from '@tollgate/gateway-core/internal';
import { z } from 'zod';

/**
 * Request bodies of the management API (contract 4.2). Objects are strict:
 * an unknown field is most likely a typo, and silently ignoring it would
 * leave the agent configured differently from what the caller meant.
 * What a label, a scope or an identity's subject may contain is judged by the
 * AgentService (gateway-core's auth/identifiers.ts), whichever way it
 * enters (this API, the dashboard, provisioning); here only their shape.
 */
const label = z.string().trim();
const budget = z.number().int('must be a whole number').min(0, 'must not be negative').max(Number.MAX_SAFE_INTEGER);
const names = z.array(z.string().trim().min(1, 'must not be empty').max(128)).max(1000);
const scopes = z.array(z.string().trim()).max(1000);
/** Identities at trusted OAuth issuers acting as the agent; the service checks each issuer is trusted. */
const externalSubjects = z
  .array(
    z.strictObject({
      issuer: z.string().min(1, 'must not be empty').max(512).regex(/^\S+$/, 'must not contain white space'),
      subject: z.string(),
    }),
  )
  .max(100)
  .refine(
    (list) => new Set(list.map((entry) => `${entry.issuer} ${entry.subject}`)).size === list.length,
    'must not name an identity twice',
  );
const wholeNumber = (min: number, max: number) =>
  z
    .number({ error: 'must be a whole number' })
    .int('must be a whole number')
    .min(min, `must be at least ${min}`)
    .max(max, `must be at most ${max}`);
/** null = no rate limit. */
export const rateLimit = z
  .strictObject({ callsPerMinute: wholeNumber(1, MAX_CALLS_PER_MINUTE), burst: wholeNumber(1, MAX_BURST) })
  .nullable();

/** Search mode for one agent (issue 28); null: the gateway's `Gw:Catalog:Search`. */
const toolSearch = z.enum(['off', 'on', 'auto'], { error: 'must be off, on, auto or null' }).nullable();
/** Tools listed beside search_tools and call_tool; kept few, as each costs context. */
const pinnedTools = z.array(z.string().trim().min(1, 'must not be empty').max(128)).max(32);

export const createAgentBody = z.strictObject({
  label,
  dailyTokenBudget: budget,
  allowedTools: names.nullable().optional(),
  scopes: scopes.optional(),
  externalSubjects: externalSubjects.optional(),
  /** Omitted: the gateway's default for new agents (none unless configured). */
  rateLimit: rateLimit.optional(),
  toolSearch: toolSearch.optional(),
  pinnedTools: pinnedTools.optional(),
  /** Calls of write tools wait for the user's confirmation (MCP 2026-07-28); default false. */
  confirmWrites: z.boolean().optional(),
});

export const updateAgentBody = z.strictObject({
  label: label.optional(),
  dailyTokenBudget: budget.optional(),
  isActive: z.boolean().optional(),
  allowedTools: names.nullable().optional(),
  scopes: scopes.optional(),
  externalSubjects: externalSubjects.optional(),
  rateLimit: rateLimit.optional(),
  toolSearch: toolSearch.optional(),
  pinnedTools: pinnedTools.optional(),
  confirmWrites: z.boolean().optional(),
});

export const issueTokenBody = z
  .strictObject({
    expiresInDays: z.number().int('must be a whole number').min(1).max(MAX_TOKEN_LIFETIME_DAYS).optional(),
  })
  .optional();

export const adminTokenBody = z.strictObject({ apiKey: z.string() });
