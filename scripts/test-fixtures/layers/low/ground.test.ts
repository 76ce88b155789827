// A test, not a source: its import upward is not read.
import { view } from '../high/view.js';

export const seen = view;
