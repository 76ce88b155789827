/**
 * Redis Cluster hash slots, computed the way the server does: CRC16 (XMODEM)
 * of the key, or of its hash tag (the text between the first `{` and the
 * next `}`, when not empty), modulo 16384. The adapter needs it to group the
 * keys of one batch by slot and to spread its global keys over the slots.
 */

export const SLOT_COUNT = 16_384;

const TABLE = crc16Table();

export function keySlot(key: string): number {
  return crc16(Buffer.from(hashedPart(key))) % SLOT_COUNT;
}

/** The part of a key the slot is computed from. */
function hashedPart(key: string): string {
  const open = key.indexOf('{');
  if (open === -1) return key;
  const close = key.indexOf('}', open + 1);
  return close === -1 || close === open + 1 ? key : key.slice(open + 1, close);
}

export function crc16(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) crc = ((crc << 8) ^ TABLE[((crc >> 8) ^ byte) & 0xff]!) & 0xffff;
  return crc;
}

function crc16Table(): Uint16Array {
  const table = new Uint16Array(256);
  for (let i = 0; i < 256; i++) {
    let crc = i << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    table[i] = crc;
  }
  return table;
}

/**
 * `count` hash tags whose slots fall in `count` equal, consecutive ranges of
 * the slot space: tag i lands in the i-th range. A cluster's masters own
 * consecutive ranges too, so a key sharded over these tags is spread over the
 * masters as evenly as the count allows, however many masters there are,
 * instead of wherever chance would put `shard-0` … `shard-15`.
 */
export function spreadTags(count: number): string[] {
  const tags: string[] = [];
  for (let shard = 0; shard < count; shard++) {
    const from = Math.floor((shard * SLOT_COUNT) / count);
    const to = Math.floor(((shard + 1) * SLOT_COUNT) / count);
    for (let attempt = 0; ; attempt++) {
      const tag = `s${shard}.${attempt}`;
      const slot = keySlot(`{${tag}}`);
      if (slot >= from && slot < to) {
        tags.push(tag);
        break;
      }
    }
  }
  return tags;
}

/** A stable shard of `count` for an id (an agent's), by its slot. */
export function shardOf(id: string, count: number): number {
  return count === 1 ? 0 : crc16(Buffer.from(id)) % count;
}

const TAG_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
let tagsBySlot: string[] | undefined;

/**
 * A three-character hash tag (of `TAG_ALPHABET`) whose slot is `slot`: lets
 * an id made elsewhere (a session's, found by its id alone) carry the slot of
 * the agent it belongs to. The table is built once, on first use (64³
 * CRC16s, a few milliseconds); three characters reach every slot.
 */
export function tagForSlot(slot: number): string {
  tagsBySlot ??= buildTagTable();
  return tagsBySlot[slot]!;
}

function buildTagTable(): string[] {
  const table: string[] = new Array(SLOT_COUNT);
  const step = (crc: number, byte: number) => ((crc << 8) ^ TABLE[((crc >> 8) ^ byte) & 0xff]!) & 0xffff;
  let found = 0;
  // The CRC of each prefix is computed once (the tags are ASCII: one byte per character).
  for (const a of TAG_ALPHABET) {
    const crcA = step(0, a.charCodeAt(0));
    for (const b of TAG_ALPHABET) {
      const crcAB = step(crcA, b.charCodeAt(0));
      for (const c of TAG_ALPHABET) {
        const slot = step(crcAB, c.charCodeAt(0)) % SLOT_COUNT;
        if (table[slot] !== undefined) continue;
        table[slot] = a + b + c;
        found++;
      }
    }
  }
  if (found !== SLOT_COUNT) throw new Error(`three-character tags reach ${found} of ${SLOT_COUNT} slots`);
  return table;
}
