// Azure Storage's CRC64 (the x-ms-content-crc64 family: polynomial
// 0x9A6C9329AC4BC9B5, reflected, all-ones start and end), and its header
// form: the 8 bytes little-endian, base64.
const POLY = 0x9a6c9329ac4bc9b5n;
const MASK = 0xffffffffffffffffn;

const TABLE: bigint[] = Array.from({ length: 256 }, (_, n) => {
  let c = BigInt(n);
  for (let k = 0; k < 8; k++) c = c & 1n ? (c >> 1n) ^ POLY : c >> 1n;
  return c;
});

/** The CRC64 of `data`. */
export function crc64(data: Buffer | string): bigint {
  let crc = MASK;
  for (const b of Buffer.isBuffer(data) ? data : Buffer.from(data, "utf8")) crc = TABLE[Number((crc ^ BigInt(b)) & 0xffn)] ^ (crc >> 8n);
  return crc ^ MASK;
}

/** The value of an x-ms-*-crc64 header for `data`: its CRC64 as 8 bytes little-endian, base64. */
export function crc64Header(data: Buffer | string): string {
  const out = Buffer.alloc(8);
  out.writeBigUInt64LE(crc64(data));
  return out.toString("base64");
}
