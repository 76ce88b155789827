// The bottom layer, importing nothing.
export const ground = 1;
