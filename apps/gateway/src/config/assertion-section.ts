import { ASSERTION_ALGORITHMS, resolveAssertionSettings } from '@tollgate/gateway-core';
import { declareKeys } from './declare.js';
import { booleanFlag, optionalText, optionChoice, optionNumber } from './fields.js';

/** gateway-core's assertion defaults, which apply to the keys left unset. */
const coreDefaults = () => resolveAssertionSettings({});

/** `Gw:Assertion:*`: the signed assertion on every forwarded call, gateway-core's options. */
export const ASSERTION_KEYS = declareKeys({
  enabled: {
    name: 'Gw:Assertion:Enabled',
    field: booleanFlag(true),
    description:
      'Every forwarded attempt carries `Tollgate-Assertion`, a JWT of at most a minute signed by the gateway, ' +
      'naming the agent (`sub`), the tool as the downstream declared it, the granted scopes, a call id (the same ' +
      'on retries) and the downstream (`aud`); the public keys are served without authentication at ' +
      "`/.well-known/jwks.json`. A downstream using host-kit's `requireGateway` refuses its tool routes to " +
      'anything else (see [Trusting only the ' +
      'gateway](../../packages/host-kit/docs/reference.md#trusting-only-the-gateway)). ' +
      '`false` sends none and serves no keys.',
  },
  algorithm: {
    name: 'Gw:Assertion:Algorithm',
    field: optionChoice(ASSERTION_ALGORITHMS),
    defaultIs: () => coreDefaults().algorithm,
    description:
      '`ES256` (ECDSA on P-256) or `EdDSA` (Ed25519). The key pair of each period is derived from ' +
      '`Gw:Jwt:SigningKey` (HKDF), so every instance signs with the same keys without coordination.',
  },
  issuer: {
    name: 'Gw:Assertion:Issuer',
    field: optionalText,
    defaultIs: () => coreDefaults().issuer,
    description: "The assertions' `iss` (host-kit's `issuer` option must match).",
  },
  rotationMinutes: {
    name: 'Gw:Assertion:RotationMinutes',
    field: optionNumber,
    defaultIs: () => coreDefaults().rotationMinutes,
    description:
      'How long one key pair signs; fractions allowed, at least a second. `/.well-known/jwks.json` serves the ' +
      'previous keys while their assertions may live (plus 30 s for clocks), the current key and the next, with ' +
      '`Cache-Control: public, max-age=` half a period, at most 300 s.',
  },
  lifetimeSeconds: {
    name: 'Gw:Assertion:LifetimeSeconds',
    field: optionNumber,
    defaultIs: () => coreDefaults().lifetimeSeconds,
    description: "An assertion's `exp − iat`: a whole number from 1 to 60.",
  },
});
