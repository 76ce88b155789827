import { z } from 'zod';
import { declareKeys } from './declare.js';
import { optionalText, positiveInt } from './fields.js';

/** `Gw:Admin:*`: the admin API key, its tokens and the sign-in backoff. */
export const ADMIN_KEYS = declareKeys({
  apiKey: {
    name: 'Gw:Admin:ApiKey',
    field: optionalText,
    defaultIs: 'unset = `POST /auth/admin/token` answers 404',
    description:
      'The admin API key (use 32 random bytes in hex). At least 32 characters, not blank, not one piece repeated ' +
      "and not of too little variety (under 64 bits by its characters' entropy) in production, or the gateway " +
      'refuses to start; development mode accepts a short or guessable one with a warning, never a blank one.',
  },
  tokenExpiryDays: { name: 'Gw:Admin:TokenExpiryDays', field: positiveInt(90), description: 'Admin JWT lifetime.' },
  signInMaxFailures: {
    name: 'Gw:Admin:SignInMaxFailures',
    field: positiveInt(5),
    description:
      'Wrong admin API keys one client address (the TCP peer; `X-Forwarded-For` is not trusted) may send, to ' +
      '`POST /auth/admin/token` and the dashboard sign-in together and across all instances, before it must ' +
      'wait. Then 429 with `Retry-After`, even for the right key, until the wait passes. A successful sign-in ' +
      'clears the count.',
  },
  signInBackoffSeconds: {
    name: 'Gw:Admin:SignInBackoffSeconds',
    field: {
      schema: z.coerce
        .number()
        .positive('must be positive')
        .max(900, 'must be at most 900 (the longest wait)')
        .default(1),
      type: 'number > 0, ≤ 900',
    },
    description:
      'The first wait after `Gw:Admin:SignInMaxFailures`, doubled for every further wrong key up to 15 minutes.',
  },
});
