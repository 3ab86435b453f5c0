// MP3 (MPEG-1/2/2.5 Layer III): a Xing/Info or VBRI header's frame count when it is plausible, else a
// bounded walk of frame headers, extrapolated over the rest of the file when the walk is cut short.
import { MAX_READ, fourcc, skipId3v2, type ByteSource, type Duration } from './byte-source.js';

const KBPS = {
  v1: [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  v2: [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160], // MPEG-2 and 2.5
};
const RATES: Record<number, number[]> = { 3: [44100, 48000, 32000], 2: [22050, 24000, 16000], 0: [11025, 12000, 8000] };
const MAX_FRAMES = 20_000;
const WALK_BYTES = 192 * 1024; // with the window reads this keeps the walk near 256 KB of I/O on any file
const SYNC_SEARCH = MAX_READ - 1500; // where the first frame may start; the rest of the read holds its successor

interface Frame { length: number; samples: number; rate: number; v1: boolean; mono: boolean; kbps: number[]; stream: number }

/** The Layer III frame header at buf[i], or undefined (free-format and reserved values included). */
function frameAt(buf: Buffer, i: number): Frame | undefined {
  if (i < 0 || i + 4 > buf.length || buf[i] !== 0xff || (buf[i + 1] & 0xe0) !== 0xe0) return undefined;
  const version = (buf[i + 1] >> 3) & 3, layer = (buf[i + 1] >> 1) & 3;
  const rateIdx = (buf[i + 2] >> 2) & 3, kbpsIdx = buf[i + 2] >> 4;
  if (version === 1 || layer !== 1 || rateIdx === 3 || kbpsIdx === 0 || kbpsIdx === 15) return undefined;
  const v1 = version === 3, samples = v1 ? 1152 : 576, rate = RATES[version][rateIdx], kbps = v1 ? KBPS.v1 : KBPS.v2;
  const length = Math.floor(((samples / 8) * kbps[kbpsIdx] * 1000) / rate) + ((buf[i + 2] >> 1) & 1);
  // `stream` is what every frame of one stream shares: version, layer and sample rate.
  return { length, samples, rate, v1, mono: buf[i + 3] >> 6 === 3, kbps, stream: ((buf[i + 1] & 0xfe) << 2) | rateIdx };
}

/** The frame count a Xing/Info (LAME, FFmpeg) or VBRI (Fraunhofer) header states, and the byte count if it has one. */
function vbrHeader(buf: Buffer, at: number, f: Frame): { frames: number; bytes?: number } | undefined {
  const x = at + 4 + (f.v1 ? (f.mono ? 17 : 32) : f.mono ? 9 : 17); // the tag sits after the side information
  if ((fourcc(buf, x) === 'Xing' || fourcc(buf, x) === 'Info') && x + 16 <= buf.length) {
    const flags = buf.readUInt32BE(x + 4);
    if (!(flags & 1)) return undefined;
    return { frames: buf.readUInt32BE(x + 8), bytes: flags & 2 ? buf.readUInt32BE(x + 12) : undefined };
  }
  if (fourcc(buf, at + 36) === 'VBRI' && at + 54 <= buf.length) {
    return { frames: buf.readUInt32BE(at + 50), bytes: buf.readUInt32BE(at + 46) };
  }
  return undefined;
}

export async function mp3Duration(src: ByteSource): Promise<Duration | undefined> {
  const start = await skipId3v2(src);
  const buf = await src.read(start, MAX_READ);
  const tail = await src.read(src.size - 128, 3);
  const end = src.size - (tail.toString('latin1') === 'TAG' ? 128 : 0); // ID3v1 is not audio
  // One header-shaped word is a 1-in-20,000 accident in random bytes; the frame after it must agree too.
  let at = -1, f: Frame | undefined;
  for (let i = 0; i < Math.min(SYNC_SEARCH, buf.length); i++) {
    const c = frameAt(buf, i);
    if (c && (start + i + c.length === end || frameAt(buf, i + c.length)?.stream === c.stream)) {
      [f, at] = [c, start + i];
      break;
    }
  }
  if (!f) return undefined;
  const audioBytes = end - at;
  const vbr = vbrHeader(buf, at - start, f);
  if (vbr && vbr.frames > 0) {
    const seconds = (vbr.frames * f.samples) / f.rate;
    // Trust the count only if the file could hold it: a stated byte count within 2% of what is there (else
    // truncated or padded), and an average bitrate Layer III can have (else the count understates the file).
    const kbps = (audioBytes * 8) / seconds / 1000;
    const bytesOk = vbr.bytes === undefined || Math.abs(vbr.bytes - audioBytes) <= vbr.bytes * 0.02 + 1024;
    if (bytesOk && kbps >= f.kbps[1] * 0.9 && kbps <= f.kbps[14] * 1.1) return { seconds, exact: true };
  }
  // Walk frame by frame, reading a window at a time so each frame is not its own read.
  let pos = at, frames = 0, seconds = 0, win = buf, winAt = start;
  while (frames < MAX_FRAMES && pos < end && pos - at < WALK_BYTES) {
    if (pos + 4 > winAt + win.length) [win, winAt] = [await src.read(pos, MAX_READ), pos];
    const g = frameAt(win, pos - winAt);
    if (!g || g.stream !== f.stream) break; // junk or a trailing tag: extrapolate over what is left
    if (pos + g.length > end) { pos = end; break; } // a cut-off last frame is not audio a decoder plays
    frames++, seconds += g.samples / g.rate, pos += g.length;
  }
  if (frames === 0) return undefined;
  if (pos >= end) return { seconds, exact: true }; // walked every frame
  return { seconds: (seconds * audioBytes) / (pos - at), exact: false }; // average frame size over the rest
}
