// The one way the duration readers touch a file: "up to N bytes at offset X". Every read is clipped to the
// file size, to MAX_READ and to a per-probe byte budget, and never throws, so a hostile header can make a
// reader see short or empty buffers but can never make it allocate big, read far, or crash.
import type { FileHandle } from 'node:fs/promises';

/** Largest single read; sizes come from the file, so this is what stops `read(0, 0xFFFFFFFF)` allocating 4 GB. */
export const MAX_READ = 64 * 1024;
/** Total bytes one probe may read; the MP3 frame walk is the only reader that gets near it. */
export const PROBE_BUDGET = 512 * 1024;
/** Total reads one probe may make: box and chunk walks read tiny headers, and a file of 8-byte boxes must not cost 60,000 reads. */
export const PROBE_READS = 2048;

/** What each container reader returns; `exact` is false when the number is an estimate (see each reader). */
export interface Duration { seconds: number; exact: boolean }

export interface ByteSource {
  /** Bytes the readers may look at; nothing at or past this offset is ever read. */
  readonly size: number;
  /** Up to `length` bytes at `offset`: shorter near the end of the file or budget, empty when out of range. */
  read(offset: number, length: number): Promise<Buffer>;
}

/** A budgeted reader over an open file; `bytesRead` lets tests assert the I/O stays bounded. */
export function fileSource(fh: FileHandle, size: number, budget = PROBE_BUDGET): ByteSource & { bytesRead: number; reads: number } {
  const src = {
    size,
    bytesRead: 0,
    reads: 0,
    async read(offset: number, length: number): Promise<Buffer> {
      if (!Number.isSafeInteger(offset) || offset < 0 || offset >= size || !(length > 0)) return Buffer.alloc(0);
      if (++src.reads > PROBE_READS) return Buffer.alloc(0);
      const n = Math.floor(Math.min(length, MAX_READ, size - offset, budget - src.bytesRead));
      if (n <= 0) return Buffer.alloc(0);
      try {
        const buf = Buffer.alloc(n);
        const { bytesRead } = await fh.read(buf, 0, n, offset);
        src.bytesRead += bytesRead;
        return buf.subarray(0, bytesRead);
      } catch {
        return Buffer.alloc(0);
      }
    },
  };
  return src;
}

/** The 4 bytes at `at` as ASCII ('' when the buffer is too short), for comparing chunk/box ids. */
export function fourcc(buf: Buffer, at: number): string {
  return at >= 0 && at + 4 <= buf.length ? buf.toString('latin1', at, at + 4) : '';
}

/** Skips ID3v2 tags at `offset` (MP3, and FLAC files some taggers prefix); returns where the audio starts. */
export async function skipId3v2(src: ByteSource, offset = 0): Promise<number> {
  for (let i = 0; i < 4; i++) { // a few stacked tags at most; a loop of tags must not spin
    const h = await src.read(offset, 10);
    if (h.length < 10 || h.toString('latin1', 0, 3) !== 'ID3' || (h[6] | h[7] | h[8] | h[9]) & 0x80) return offset;
    const body = (h[6] << 21) | (h[7] << 14) | (h[8] << 7) | h[9]; // syncsafe: 7 bits a byte
    offset += 10 + body + (h[5] & 0x10 ? 10 : 0); // flag 0x10: a 10-byte footer follows
  }
  return offset;
}
