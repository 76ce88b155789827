import { KeyedListeners } from './keyed-listeners.js';

/**
 * Per agent, who wants to hear that this process freed budget tokens (a
 * settle, release or reset landed). Both ledger adapters use it for
 * `BudgetLedger.onFreed`; it only knows this process's own writes.
 */
export class FreedListeners extends KeyedListeners {}
