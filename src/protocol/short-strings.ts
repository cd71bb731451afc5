/**
 * Short strings read from the wire, decoded once and handed out again while their bytes repeat:
 * a request's client id, group id, member id and topic names are the same bytes request after
 * request, and a UTF-8 decode (`Buffer.toString`) cost ~130 ns and a new string each time, about
 * 40% of decoding an OffsetCommit (issue #16). The same string back also keeps its hash, so the
 * Map lookups by group id and topic name further on do not hash it again.
 *
 * A direct-mapped table of `SLOTS` entries keyed by an FNV-1a hash of the bytes, holding each
 * entry's bytes (at most `MAX_BYTES`) in one fixed arena: a hit is two short loops over the
 * bytes and allocates nothing; a miss decodes as before and takes the slot. Equal bytes always
 * decode to equal strings (invalid UTF-8 included), so what a slot returns is what
 * `Buffer.toString('utf8')` would.
 */

/** Longer strings are decoded every time. */
export const SHORT_STRING_MAX_BYTES = 64;
/** Entries held (a power of two). */
const SLOTS = 1024;

const arena = new Uint8Array(SLOTS * SHORT_STRING_MAX_BYTES);
/** Byte length of each slot's string; -1 while empty. */
const lengths = new Int32Array(SLOTS).fill(-1);
const strings: string[] = new Array<string>(SLOTS).fill('');

/** The UTF-8 string of `buf[at, at + n)`, `n` at most `SHORT_STRING_MAX_BYTES`. */
export function shortString(buf: Buffer, at: number, n: number): string {
  const end = at + n;
  let h = 0x811c9dc5 ^ n;
  for (let i = at; i < end; i++) h = Math.imul(h ^ buf[i]!, 0x01000193);
  const slot = (h ^ (h >>> 15)) & (SLOTS - 1);
  const base = slot * SHORT_STRING_MAX_BYTES;
  if (lengths[slot] === n) {
    let i = 0;
    while (i < n && arena[base + i] === buf[at + i]) i++;
    if (i === n) return strings[slot]!;
  }
  const s = buf.toString('utf8', at, end);
  for (let i = 0; i < n; i++) arena[base + i] = buf[at + i]!;
  lengths[slot] = n;
  strings[slot] = s;
  return s;
}
