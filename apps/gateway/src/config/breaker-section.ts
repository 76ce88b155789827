import { resolveResilienceOptions } from '@tollgate/gateway-core';
import { declareKeys } from './declare.js';
import { optionalText, optionNumber } from './fields.js';

/** gateway-core's breaker defaults, which apply to the keys left unset. */
const coreDefaults = () => resolveResilienceOptions({}).breaker;

/** `Gw:Breaker:*`: the gateway-wide circuit breaker, gateway-core's options (seconds here, milliseconds there). */
export const BREAKER_KEYS = declareKeys({
  mode: {
    name: 'Gw:Breaker:Mode',
    field: { ...optionalText, type: '`consecutive` or `ratio`' },
    defaultIs: () => coreDefaults().mode,
    description:
      '`consecutive` (open after `FailureThreshold` failures in a row) or `ratio` (open when more than ' +
      '`FailureRatio` of the calls in `WindowSeconds` failed, once `MinimumCalls` were made).',
  },
  failureThreshold: {
    name: 'Gw:Breaker:FailureThreshold',
    field: optionNumber,
    defaultIs: () => coreDefaults().failureThreshold,
    description: 'Consecutive mode: failures in a row that open the breaker.',
  },
  failureRatio: {
    name: 'Gw:Breaker:FailureRatio',
    field: optionNumber,
    defaultIs: () => coreDefaults().failureRatio,
    description: 'Ratio mode: the share of failed calls in the window above which the breaker opens.',
  },
  windowSeconds: {
    name: 'Gw:Breaker:WindowSeconds',
    field: optionNumber,
    defaultIs: () => coreDefaults().windowMs / 1000,
    description:
      "Ratio mode's window; positive and may be fractional. In either mode it is also how recent another " +
      "caller's success must be for one caller's failures to be held back from the shared breaker (each caller " +
      'has a breaker of its own; see "One caller cannot isolate a downstream" in ' +
      '[behaviour](behaviour.md#tool-names-breakers-workers-and-large-answers-issue-25-round-3)).',
  },
  minimumCalls: {
    name: 'Gw:Breaker:MinimumCalls',
    field: optionNumber,
    defaultIs: () => coreDefaults().minimumCalls,
    description: 'Ratio mode: calls in the window before the ratio counts.',
  },
  breakSeconds: {
    name: 'Gw:Breaker:BreakSeconds',
    field: optionNumber,
    defaultIs: () => coreDefaults().breakMs / 1000,
    description: 'How long the breaker stays open before one probe call is let through.',
  },
});
