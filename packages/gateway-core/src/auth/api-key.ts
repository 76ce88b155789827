/** Below this estimate a key is refused: a random 32-character hex key scores about 115, and never near 64. */
export const MIN_API_KEY_BITS = 64;

/**
 * Why a configured key is guessable, or null: blank, one shorter piece
 * repeated (`aaaa…`, `passwordpassword…`), or too little variety for its
 * length (its characters' Shannon entropy times its length, an upper bound on
 * what a random key of that alphabet holds, under MIN_API_KEY_BITS). A length
 * floor alone let 32 spaces or 32 × "a" through.
 */
export function apiKeyWeakness(key: string): string | null {
  if (key.trim() === '') return 'is blank';
  if ((key + key).indexOf(key, 1) < key.length) return 'is one piece repeated';
  if (estimatedBits(key) < MIN_API_KEY_BITS) return 'has too few different characters';
  return null;
}

function estimatedBits(key: string): number {
  const characters = [...key];
  const counts = new Map<string, number>();
  for (const character of characters) counts.set(character, (counts.get(character) ?? 0) + 1);
  let perCharacter = 0;
  for (const count of counts.values())
    perCharacter -= (count / characters.length) * Math.log2(count / characters.length);
  return perCharacter * characters.length;
}
