/** An item of a LIKE segment that matches any one code point (`_`); every other item is a code point. */
export const ANY_ONE = -1;

/**
 * Characters occurring at least this often in a segment get a precomputed bit mask; rarer ones are looked up by
 * position. Bounds both the masks' memory (at most length / 32 masks) and the per-character work (at most 31 bits).
 */
const DENSE_MIN = 32;
const NONE: readonly number[] = [];

/**
 * A run of a LIKE pattern between two `%`: fixed-length, of code points and `_`. Searching uses the bit-parallel
 * Shift-And algorithm: one pass over the text costing O(length / 32) word operations per character, so a 4 KiB
 * segment against a 4 KiB value is about half a million operations, however the text and pattern are built.
 * (The greedy wildcard matcher used before retried from the last `%` on every mismatch: O(pattern × value)
 * character steps, 55 ms per message at those sizes.)
 */
export class LikeSegment {
  readonly length: number;
  private readonly words: number;
  /** Bit i set: item i is `_`. */
  private readonly wild: Uint32Array;
  /** Per frequent code point: bit i set when item i matches it (it or `_`). */
  private readonly dense = new Map<number, Uint32Array>();
  /** Per rare code point: the items that are it. */
  private readonly sparse = new Map<number, number[]>();
  /** Scratch state, reused: matching is synchronous and never re-entered. */
  private readonly state: Uint32Array;
  private readonly hits = new Int32Array(DENSE_MIN);

  constructor(private readonly items: Int32Array) {
    this.length = items.length;
    this.words = Math.max(1, Math.ceil(items.length / 32));
    this.wild = new Uint32Array(this.words);
    this.state = new Uint32Array(this.words);
    const positions = new Map<number, number[]>();
    items.forEach((item, index) => {
      if (item === ANY_ONE) this.wild[index >>> 5] |= 1 << (index & 31);
      else if (positions.has(item)) positions.get(item)?.push(index);
      else positions.set(item, [index]);
    });
    for (const [char, at] of positions) {
      if (at.length < DENSE_MIN) {
        this.sparse.set(char, at);
        continue;
      }
      const mask = Uint32Array.from(this.wild);
      for (const index of at) mask[index >>> 5] |= 1 << (index & 31);
      this.dense.set(char, mask);
    }
  }

  /** Whether the segment matches `text` from `start` on (the caller checks that it fits). */
  matchesAt(text: Int32Array, start: number): boolean {
    const { items } = this;
    for (let index = 0; index < items.length; index++) {
      if (items[index] !== ANY_ONE && items[index] !== text[start + index]) return false;
    }
    return true;
  }

  /** The end of the leftmost match lying within `text[from, end)`, or -1. */
  findEnd(text: Int32Array, from: number, end: number): number {
    if (this.length === 0) return from;
    // Bit i of the state: items 0..i match the text just read. Only words up to `top` can be non-zero.
    const { state, wild, hits, words } = this;
    state.fill(0);
    const lastWord = (this.length - 1) >>> 5;
    const lastBit = 1 << ((this.length - 1) & 31);
    let top = 0;
    for (let at = from; at < end; at++) {
      const char = text[at];
      let mask = this.dense.get(char);
      let count = 0;
      if (mask === undefined) {
        // A rare character: state & (wild | its own bits) without building a mask. Its bit i survives when items
        // 0..i-1 matched before this character (bit i-1 of the old state; always for i = 0).
        mask = wild;
        for (const index of this.sparse.get(char) ?? NONE) {
          if (index === 0 || state[(index - 1) >>> 5] & (1 << ((index - 1) & 31))) hits[count++] = index;
        }
      }
      // Shift in a 1 (a match may start at every character) and keep the items that match this character.
      let carry = 1;
      if (top < words - 1) top++; // not Math.min: a global lookup per character is slow in a vm context (tests)
      for (let word = 0; word <= top; word++) {
        const value = state[word];
        state[word] = ((value << 1) | carry) & mask[word];
        carry = value >>> 31;
      }
      for (let hit = 0; hit < count; hit++) state[hits[hit] >>> 5] |= 1 << (hits[hit] & 31);
      if (state[lastWord] & lastBit) return at + 1;
      while (top > 0 && state[top] === 0) top--;
    }
    return -1;
  }
}
