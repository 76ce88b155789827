export { view } from './view.js';
