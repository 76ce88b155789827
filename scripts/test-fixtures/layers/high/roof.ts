// Imports down (allowed), one of them back from the module that imports it: a cycle.
import { ground } from '../low/ground.js';
import { leansUp } from '../low/leans-up.js';

export const roof = ground;
export const both = () => leansUp;
