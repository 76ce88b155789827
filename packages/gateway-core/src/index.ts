export type * from './store/ports.js';
