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

export function crc32c(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) crc = TABLE[(crc ^ bytes[i]) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}
