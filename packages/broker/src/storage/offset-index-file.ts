import { FileHandle } from './file-handle';

/** Each index entry is the 8-byte big-endian byte address of one entry in the segment's `.mmm` file. */
export const INDEX_ENTRY_BYTES = 8;

/**
 * The `.idx` file of a segment, mirrored in memory. Entries are written only once the journal holds them durably,
 * so the index is fsync'd at the journal's flush, not per write.
 */
export class OffsetIndexFile {
  private constructor(
    private readonly file: FileHandle,
    private readonly addresses: number[],
  ) {}

  /** Opens (or creates) the index and loads every whole entry; a torn tail is reported, not loaded. */
  static async open(path: string): Promise<{ index: OffsetIndexFile; tornBytes: number }> {
    const file = await FileHandle.open(path, true);
    const { addresses, tornBytes } = decodeIndex(await file.readAll());
    return { index: new OffsetIndexFile(file, addresses), tornBytes };
  }

  get path(): string {
    return this.file.path;
  }

  get count(): number {
    return this.addresses.length;
  }

  addressOf(entry: number): number {
    return this.addresses[entry];
  }

  /** Writes the addresses after the last entry and makes them visible; durable at the next `sync`. */
  async append(addresses: readonly number[]): Promise<void> {
    await this.file.append(encodeAddresses(addresses));
    for (const address of addresses) this.addresses.push(address);
  }

  sync(): Promise<void> {
    return this.file.sync();
  }

  /**
   * Overwrites the entries from `first` on with `addresses` (appending those past the end), fsyncs, then makes
   * them visible. Nothing is removed, so a crash meanwhile leaves at least as many entries as before.
   */
  async replaceDurably(first: number, addresses: readonly number[]): Promise<void> {
    const overwritten = Math.max(0, Math.min(addresses.length, this.addresses.length - first));
    const bytes = encodeAddresses(addresses);
    const overwrittenBytes = overwritten * INDEX_ENTRY_BYTES;
    if (overwritten > 0) await this.file.writeAt(bytes.subarray(0, overwrittenBytes), first * INDEX_ENTRY_BYTES);
    if (overwritten < addresses.length) await this.file.append(bytes.subarray(overwrittenBytes));
    await this.file.sync();
    addresses.forEach((address, i) => (this.addresses[first + i] = address));
  }

  /** Cuts the file (and the memory view) to `count` entries; `durably` fsyncs the cut before returning. */
  async truncate(count: number, durably = false): Promise<void> {
    this.addresses.length = Math.min(this.addresses.length, count);
    await this.file.truncate(count * INDEX_ENTRY_BYTES);
    if (durably) await this.file.sync();
  }

  close(): Promise<void> {
    return this.file.close();
  }
}

/** The addresses of an index file's whole entries, and the bytes of a torn partial entry after them. */
export function decodeIndex(bytes: Buffer): { addresses: number[]; tornBytes: number } {
  const count = Math.floor(bytes.length / INDEX_ENTRY_BYTES);
  const addresses = new Array<number>(count);
  for (let i = 0; i < count; i++) addresses[i] = Number(bytes.readBigUInt64BE(i * INDEX_ENTRY_BYTES));
  return { addresses, tornBytes: bytes.length - count * INDEX_ENTRY_BYTES };
}

function encodeAddresses(addresses: readonly number[]): Buffer {
  const bytes = Buffer.allocUnsafe(addresses.length * INDEX_ENTRY_BYTES);
  for (let i = 0; i < addresses.length; i++) bytes.writeBigUInt64BE(BigInt(addresses[i]), i * INDEX_ENTRY_BYTES);
  return bytes;
}
