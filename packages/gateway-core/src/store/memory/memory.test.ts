import { describeStoreContract } from '../../testing/store-contract.js';
import { createMemoryStore } from './index.js';

describeStoreContract('in-memory', async (options) => createMemoryStore(options));
