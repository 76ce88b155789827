import { MAX_TOKEN_LIFETIME_DAYS } from '@tollgate/gateway-core';
import { z } from 'zod';

/**
 * Request bodies of the management API (contract 4.2). Objects are strict:
 * an unknown field is most likely a typo, and silently ignoring it would
 * leave the agent configured differently from what the caller meant.
 */
const label = z.string().trim().min(1, 'must not be empty').max(200);
const budget = z.number().int('must be a whole number').min(0, 'must not be negative').max(Number.MAX_SAFE_INTEGER);
const names = z.array(z.string().trim().min(1, 'must not be empty').max(128)).max(1000);

export const createAgentBody = z.strictObject({
  label,
  dailyTokenBudget: budget,
  allowedTools: names.nullable().optional(),
  scopes: names.optional(),
});

export const updateAgentBody = z.strictObject({
  label: label.optional(),
  dailyTokenBudget: budget.optional(),
  isActive: z.boolean().optional(),
  allowedTools: names.nullable().optional(),
  scopes: names.optional(),
});

export const issueTokenBody = z
  .strictObject({
    expiresInDays: z.number().int('must be a whole number').min(1).max(MAX_TOKEN_LIFETIME_DAYS).optional(),
  })
  .optional();

export const adminTokenBody = z.strictObject({ apiKey: z.string() });
