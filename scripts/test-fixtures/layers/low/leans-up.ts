// Imports from the layer above: the upward import the check must name.
import { roof } from '../high/roof.js';

export const leansUp = roof + 1;
