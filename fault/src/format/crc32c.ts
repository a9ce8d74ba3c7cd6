/**
 * CRC32C (Castagnoli, reflected polynomial 0x82F63B78), table-driven. The checker computes it itself instead of
 * importing the broker's native CRC, so a bug there cannot hide a bug in what the broker wrote.
 */
const POLYNOMIAL = 0x82f63b78;

const TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ POLYNOMIAL : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/**
 * CRC32C of `bytes`; with `previous` (the CRC32C of some bytes A), the CRC32C of A followed by `bytes` — the same
 * chaining as `crc32c(bytes, previous)` of @node-rs/crc32.
 */
export function crc32c(bytes: Uint8Array, previous = 0): number {
  let crc = (previous ^ 0xffffffff) >>> 0;
  for (let i = 0; i < bytes.length; i++) crc = TABLE[(crc ^ bytes[i]) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}
