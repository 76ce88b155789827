/**
 * Whether JSON text opens at most `limit` objects and arrays: each level of
 * its nesting opens one, so it then nests no deeper than `limit` (brackets
 * inside strings only make the count larger). Most JSON opens a handful, and
 * finding them with `indexOf` costs a fraction of walking the text (or the
 * parsed value) character by character: a depth check can skip its walk.
 */
export function opensAtMost(text: string, limit: number): boolean {
  let count = 0;
  for (let at = text.indexOf('{'); at !== -1; at = text.indexOf('{', at + 1)) if (++count > limit) return false;
  for (let at = text.indexOf('['); at !== -1; at = text.indexOf('[', at + 1)) if (++count > limit) return false;
  return true;
}
