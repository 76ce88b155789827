import { describeStoreContract } from '../contract.js';
import { createMemoryStore } from './index.js';

describeStoreContract('in-memory', async (options) => createMemoryStore(options));
