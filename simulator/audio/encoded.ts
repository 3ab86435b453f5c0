// What every encoder here returns: the container's head, then its frames in order. Streaming replies send a frame group
// per ~100 ms of audio, so a chunk never splits a frame and each one can be decoded as it arrives.

export interface Encoded {
  /** Bytes before the first frame (a WAV header, FLAC metadata, Ogg Opus headers); empty for raw streams. */
  head: Buffer;
  frames: Buffer[];
  /** Audio each frame holds, in milliseconds. */
  frameMs: number;
}

export function joined(e: Encoded): Buffer {
  return Buffer.concat([e.head, ...e.frames]);
}

/** Groups frames into chunks of at least `chunkMs` of audio (the head travels with the first). */
export function chunked(e: Encoded, chunkMs = 100): Buffer[] {
  const per = Math.max(1, Math.round(chunkMs / e.frameMs));
  const chunks: Buffer[] = [];
  for (let i = 0; i < e.frames.length; i += per) chunks.push(Buffer.concat(e.frames.slice(i, i + per)));
  if (chunks.length === 0) return e.head.length ? [e.head] : [];
  chunks[0] = Buffer.concat([e.head, chunks[0]]);
  return chunks;
}
